"""AWS's answers to `guide refresh-prices`, served offline: real boto3 clients with botocore's
Stubber activated, each queued with the responses of tests/fixtures/aws-refresh/responses.json that
its service and region get (see write_responses.py there for how they were made), and last the
Spot Instance Advisor's object, tests/fixtures/aws-refresh/spot-advisor-data.json: written by hand
in the shape of AWS's (ranges, then each region's Linux and Windows tables), it rates tracked
instances the frozen project does not rate, an untracked one, and every one on Windows too."""

from __future__ import annotations

import copy
import datetime as dt
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import boto3
from botocore.config import Config
from botocore.response import StreamingBody
from botocore.stub import ANY, Stubber

RESPONSES = Path(__file__).parent / "fixtures" / "aws-refresh" / "responses.json"
RECORDING = json.loads(RESPONSES.read_text(encoding="utf-8"))
CALLED_AT = dt.datetime.fromisoformat(RECORDING["called_at"])
TIMES = ("StartTime", "EndTime")
ADVISOR = json.loads((RESPONSES.parent / "spot-advisor-data.json").read_text(encoding="utf-8"))
ADVISOR_MODIFIED = "2026-11-24T06:12:03+00:00"


def advisor_call(doc: dict | None = None, modified: str = ADVISOR_MODIFIED, body: str | None = None) -> dict:
    """The refresh's last call: the Advisor's object, as doc (a copy of the fixture when None) or a raw body."""
    text = body if body is not None else json.dumps(ADVISOR if doc is None else doc)
    return {"service": "s3", "region": "us-east-1", "operation": "get_object",
            "params": {"Bucket": "spot-bid-advisor", "Key": "spot-advisor-data.json"},
            "response": {"Body": text, "LastModified": modified, "ContentType": "application/json"}}


def calls(advisor: dict | None = None) -> list[dict]:
    """A fresh copy of the recorded calls, to edit for one test; advisor: the Advisor's call, if not the fixture's."""
    return copy.deepcopy(RECORDING["calls"]) + [advisor or advisor_call()]


def _s3_object(response: dict) -> dict:
    data = response["Body"].encode("utf-8")
    return {**response, "Body": StreamingBody(io.BytesIO(data), len(data)), "ContentLength": len(data),
            "LastModified": dt.datetime.fromisoformat(response["LastModified"])}


def client(service: str, region: str, attempts: int = 3) -> Any:
    # Made-up keys: a stubbed client signs nothing that leaves the process.
    return boto3.client(service, region_name=region, aws_access_key_id="AKIDEXAMPLE", aws_secret_access_key="not-a-secret",
                        config=Config(retries={"mode": "standard", "total_max_attempts": attempts}))


class Stubbed:
    """A (service, region) -> client factory serving the given calls, in order per client."""

    def __init__(self, recorded: list[dict], exact_times: bool = True):
        """exact_times=False: any Spot window is accepted (the command asks for the 30 days before now)."""
        self.clients: dict[tuple[str, str], tuple[Any, Stubber]] = {}
        for c in recorded:
            key = (c["service"], c["region"])
            if key not in self.clients:
                made = client(*key)
                self.clients[key] = (made, Stubber(made))
            stub = self.clients[key][1]
            params = None if c["params"] is None else dict(c["params"])  # None: any parameters
            for name in TIMES:
                if params is not None and name in params:
                    params[name] = dt.datetime.fromisoformat(params[name]) if exact_times else ANY
            if "error" in c:
                stub.add_client_error(c["operation"], service_error_code=c["error"]["code"],
                                      service_message=c["error"]["message"], http_status_code=c["error"].get("status", 400),
                                      expected_params=params)
            elif c["operation"] == "get_object":
                stub.add_response(c["operation"], _s3_object(c["response"]), params)
            else:
                stub.add_response(c["operation"], c["response"], params)
        for _, stub in self.clients.values():
            stub.activate()

    def __call__(self, service: str, region: str) -> Any:
        return self.clients[(service, region)][0]

    def assert_all_called(self) -> None:
        for _, stub in self.clients.values():
            stub.assert_no_pending_responses()


def a_week_later(recorded: list[dict], now: dt.datetime) -> list[dict]:
    """The same answers asked on another day: the Spot window moves with the call."""
    for c in recorded:
        if c["operation"] == "describe_spot_price_history":
            c["params"]["StartTime"] = (now - dt.timedelta(days=30)).isoformat()
            c["params"]["EndTime"] = now.isoformat()
    return recorded


def edit(recorded: list[dict], operation: str, region: str, change: Callable[[dict], None], nth: int = 0) -> None:
    """Apply change to the response of the nth call of operation in region."""
    found = [c for c in recorded if c["operation"] == operation and c["region"] == region]
    change(found[nth]["response"])


def cut_after(recorded: list[dict], operation: str, region: str, error: dict) -> list[dict]:
    """The calls up to the first call of operation in region, which answers with the error instead;
    the calls after it on any client are never reached, so they are left out."""
    out = []
    for c in recorded:
        if c["operation"] == operation and c["region"] == region:
            out.append({**c, "error": error})
            return out
        out.append(c)
    raise AssertionError(f"no {operation} in {region}")


class AnswerServer:
    """A real HTTP server on 127.0.0.1 answering every request with the given (status, headers, body)
    answers in turn (the last one again once they run out): boto3 clients pointed at it with
    endpoint_url meet what a proxy, an outage or AWS's own errors send, through botocore's whole
    parsing and retry path."""

    def __init__(self, *answers: tuple[int, dict[str, str], str]):
        import http.server
        import threading

        self.answers = list(answers)
        self.requests: list[str] = []
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                server.requests.append(self.path)
                status, headers, body = server.answers.pop(0) if len(server.answers) > 1 else server.answers[0]
                data = body.encode("utf-8")
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_POST = do_GET = _answer

            def log_message(self, *args) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> AnswerServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=10)

    def client(self, service: str, region: str, attempts: int = 1) -> Any:
        return boto3.client(service, region_name=region, endpoint_url=self.url, aws_access_key_id="AKIDEXAMPLE",
                            aws_secret_access_key="not-a-secret",
                            config=Config(retries={"mode": "standard", "total_max_attempts": attempts}))


def served(server: AnswerServer, service: str, attempts: int = 1) -> Callable[[str, str], Any]:
    """A client factory whose `service` clients talk to the server and whose others serve the
    recorded answers (stubbed), so the refresh reaches the server's service first time round."""
    stubbed = Stubbed([c for c in calls() if c["service"] != service], exact_times=False)
    made: dict[tuple[str, str], Any] = {}

    def factory(svc: str, region: str) -> Any:
        if svc != service:
            return stubbed(svc, region)
        if (svc, region) not in made:
            made[(svc, region)] = server.client(svc, region, attempts)
        return made[(svc, region)]
    return factory


HTML_PAGE = ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>502 Bad Gateway</title></head>\n"
             "<body><h1>Bad Gateway</h1><p>The proxy received an invalid response.<br></body></html>\n")
HTML = {"Content-Type": "text/html; charset=utf-8"}
XML = {"Content-Type": "text/xml;charset=UTF-8"}


def ec2_error(code: str, message: str) -> str:
    """An EC2 (query protocol) error document, as EC2 writes one."""
    return (f"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Response><Errors><Error><Code>{code}</Code><Message>{message}</Message>"
            "</Error></Errors><RequestID>ea966190-f9aa-478e-9ede-example</RequestID></Response>")


def json_error(code: str, message: str) -> tuple[dict[str, str], str]:
    """A JSON protocol error (Price List, Savings Plans): headers and body."""
    return ({"Content-Type": "application/x-amz-json-1.1", "x-amzn-ErrorType": code},
            json.dumps({"__type": code, "message": message}))


class RecordedBlocks:
    """DescribeCapacityBlockOfferings, which moto does not implement, answered on moto's own EC2
    clients from the recording, by region and instance type: each answer is checked against
    botocore's service model as Stubber checks one, and goes back through botocore's own handling
    (an error answer raises ClientError). A question the recording has no answer for is answered
    with no offerings."""

    def __init__(self, recorded: list[dict]):
        self.answers = {(c["region"], c["params"]["InstanceType"]): c for c in recorded
                        if c["operation"] == "describe_capacity_block_offerings"}
        self.asked: list[tuple[str, str]] = []

    def attach(self, made: Any, region: str) -> Any:
        from botocore.awsrequest import AWSResponse
        from botocore.validate import ParamValidator

        shape = made.meta.service_model.operation_model("DescribeCapacityBlockOfferings").output_shape
        question: dict[str, str] = {}

        def remember(params: dict, **_: Any) -> None:
            question["type"] = params.get("InstanceType", "")

        def answer(**_: Any) -> tuple[Any, dict]:
            self.asked.append((region, question["type"]))
            c = self.answers.get((region, question["type"]), {"response": {"CapacityBlockOfferings": []}})
            if "error" in c:
                status = c["error"].get("status", 400)
                return AWSResponse(None, status, {}, None), {
                    "Error": {"Code": c["error"]["code"], "Message": c["error"]["message"]}, "ResponseMetadata": {"HTTPStatusCode": status}}
            report = ParamValidator().validate(c["response"], shape)
            assert not report.has_errors(), report.generate_report()
            return AWSResponse(None, 200, {}, None), {**copy.deepcopy(c["response"]), "ResponseMetadata": {"HTTPStatusCode": 200}}

        made.meta.events.register("before-parameter-build.ec2.DescribeCapacityBlockOfferings", remember)
        made.meta.events.register("before-call.ec2.DescribeCapacityBlockOfferings", answer)
        return made


def moto_aws(recorded: list[dict]) -> tuple[Callable[[str, str], Any], RecordedBlocks]:
    """A client factory for a refresh against moto (call it inside moto's mock_aws): EC2 (DescribeRegions,
    instance type offerings, Spot price history) and S3 (the Advisor's object, put in a public bucket and
    read with an unsigned client, as AWS serves it) are moto's; the Price List and Savings Plans, which
    moto does not implement, serve the recorded answers (stubbed, any Savings Plans filter accepted, as
    the regions asked are moto's); Capacity Blocks are answered from the recording on moto's clients."""
    from botocore import UNSIGNED

    s3 = client("s3", "us-east-1")
    if not s3.list_buckets()["Buckets"]:  # a second refresh in the same moto finds the object there
        s3.create_bucket(Bucket="spot-bid-advisor")
        s3.put_object(Bucket="spot-bid-advisor", Key="spot-advisor-data.json", Body=json.dumps(ADVISOR).encode("utf-8"))
        s3.put_bucket_policy(Bucket="spot-bid-advisor", Policy=json.dumps({
            "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject",
                                                    "Resource": "arn:aws:s3:::spot-bid-advisor/*"}]}))
    stubbed = Stubbed([{**c, "params": None} if c["service"] == "savingsplans" else c
                       for c in recorded if c["service"] in ("pricing", "savingsplans")])
    blocks = RecordedBlocks(recorded)
    made: dict[tuple[str, str], Any] = {}

    def factory(service: str, region: str) -> Any:
        if service in ("pricing", "savingsplans"):
            return stubbed(service, region)
        if (service, region) not in made:
            if service == "s3":
                made[(service, region)] = boto3.client("s3", region_name=region, config=Config(signature_version=UNSIGNED))
            else:
                made[(service, region)] = blocks.attach(client(service, region), region)
        return made[(service, region)]

    return factory, blocks


def set_on_demand(instance: str, region: str, usd: float):
    """An edit of a get_products page: the on-demand rate of one product set to usd."""
    def change(response: dict) -> None:
        items = [json.loads(i) for i in response["PriceList"]]
        hits = 0
        for item in items:
            a = item["product"]["attributes"]
            if (a["instanceType"], a["regionCode"], a["marketoption"]) == (instance, region, "OnDemand"):
                for term in item["terms"]["OnDemand"].values():
                    for dim in term["priceDimensions"].values():
                        dim["pricePerUnit"]["USD"] = f"{usd:.10f}"
                        hits += 1
        assert hits == 1
        response["PriceList"] = [json.dumps(i) for i in items]
    return change
