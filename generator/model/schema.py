"""The scenario schema: one team's situation, as a contributor writes it in scenarios/*.yaml.

These models are the single source of truth for the file format. `schemas/scenario.schema.json` is
exported from them (`guide schema`), and a test keeps the committed copy equal to the export.

A scenario file as typed models (pydantic v2, `extra="forbid"`, strict types), every number bounded
by what a real team could ask (`guide validate`, the calculator's field table and `guide mcp`'s tool
read the same bounds); the JSON Schema in `schemas/` is exported from here.
"""

from __future__ import annotations

import json
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from generator.model.catalog import Option
from generator.model.engine import HOURS_PER_DAY, HOURS_PER_MONTH

DAYS_PER_MONTH = HOURS_PER_MONTH / HOURS_PER_DAY

Lean = Literal["trainium", "gpu", "hybrid", "neither"]
Architecture = Literal["mainstream", "moderate-custom", "heavy-custom-cuda", "novel"]
ConstraintName = Literal[
    "custom-cuda-kernels", "dynamic-shapes", "tensorflow", "day-one-architectures", "multi-cloud",
    "cuda-only-dependency", "supported-neuron-release", "neuron-pytorch-xla",
]
Availability = Literal["available", "constrained", "unavailable"]
Experience = Literal["none", "some", "experienced"]

SCHEMA_URL = "https://trainium-or-gpu.github.io/guide/schemas/scenario.schema.json"
MODELINE = "# yaml-language-server: $schema=../schemas/scenario.schema.json"


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class Compute(Model):
    """One side of the comparison: which instance, where, and how it is bought."""

    instance: str = Field(min_length=1, description="EC2 instance type, e.g. trn2.48xlarge or p5.48xlarge.")
    region: str = Field(min_length=1, description="AWS region with a price in data/prices.yaml, e.g. us-east-1.")
    option: Option = Field("on-demand", description="How the instance is bought.")
    count: int = Field(
        1, ge=1, le=100_000,
        description="Instances used at once; sets wall-clock time, the instances a commitment reserves, and how often spot interrupts the job.",
    )
    held_months: float | None = Field(
        None, ge=0, le=36, allow_inf_nan=False,
        description="Months left on a reservation of these instances the team already holds (commit options only); that part is sunk.",
    )

    @model_validator(mode="after")
    def _held_needs_commitment(self) -> Compute:
        if self.held_months is not None and self.option not in ("commit-1y", "commit-3y"):
            raise ValueError(f"held_months is only for commit-1y or commit-3y (got option '{self.option}')")
        return self


class RunSize(Model):
    """How big one training run is: measured GPU instance-hours, or parameters, tokens and MFU."""

    gpu_instance_hours: float | None = Field(
        None, gt=0, le=10_000_000, allow_inf_nan=False, description="Instance-hours one run takes on the GPU option."
    )
    params_billion: float | None = Field(
        None, gt=0, le=100_000, allow_inf_nan=False, description="Model parameters, billions.")
    tokens_billion: float | None = Field(
        None, gt=0, le=1_000_000, allow_inf_nan=False, description="Training tokens per run, billions.")
    mfu: float | None = Field(
        None, ge=0.01, le=1, allow_inf_nan=False, description="Model FLOPs utilisation on the GPU option, a share of its peak (0.4 is 40 %)."
    )
    precision: Literal["bf16", "fp8"] = Field("bf16", description="Which peak rate MFU is measured against.")

    @model_validator(mode="after")
    def _one_way(self) -> RunSize:
        flops = (self.params_billion, self.tokens_billion, self.mfu)
        if self.gpu_instance_hours is not None:
            if any(v is not None for v in flops):
                raise ValueError("give gpu_instance_hours, or params_billion + tokens_billion + mfu, not both")
        elif any(v is None for v in flops):
            raise ValueError("give gpu_instance_hours, or all three of params_billion, tokens_billion and mfu")
        return self


class Estimate(Model):
    """A figure with the range it is believed to lie in: a ratio of throughputs, from a hundredth to a
    hundred (a one-chip instance against an eight-GPU one, or the other way round, stays inside)."""

    value: float = Field(ge=0.01, le=100, allow_inf_nan=False)
    low: float = Field(ge=0.01, le=100, allow_inf_nan=False)
    high: float = Field(ge=0.01, le=100, allow_inf_nan=False)

    @model_validator(mode="after")
    def _ordered(self) -> Estimate:
        if not self.low <= self.value <= self.high:
            raise ValueError(f"needs low <= value <= high (got low {self.low}, value {self.value}, high {self.high})")
        return self


class PortWeeks(Estimate):
    """Engineer-weeks for one port: 0 is a real answer, for a team whose model already trains on Neuron."""

    value: float = Field(ge=0, le=1000, allow_inf_nan=False)
    low: float = Field(ge=0, le=1000, allow_inf_nan=False)
    high: float = Field(ge=0, le=1000, allow_inf_nan=False)


class Porting(Model):
    """Porting effort. Leave `weeks` out to use the architecture class's default range."""

    weeks: PortWeeks | None = Field(
        None, description="Engineer-weeks for one port, with its range; 0 when the model already trains on Neuron.")
    engineer_week_usd: float | None = Field(
        None, gt=0, le=100_000, allow_inf_nan=False, description="Cost of one engineer-week; default from data/assumptions.yaml."
    )
    extra_usd: float = Field(
        0.0, ge=0, le=100_000_000, allow_inf_nan=False, description="Other one-off cost of each port, e.g. validation compute."
    )
    engineers: float | None = Field(
        None, ge=0.1, le=100, allow_inf_nan=False,
        description="Engineers on the port at once; its calendar time is weeks over this. Default from data/assumptions.yaml.",
    )


class AvailabilitySpec(Model):
    trainium: Availability = "available"
    gpu: Availability = "available"
    needed_within_days: int | None = Field(None, ge=1, le=3650, description="How soon the run must start; none if not urgent.")
    finish_within_days: int | None = Field(
        None, ge=1, le=3650,
        description="How soon the whole plan must be finished, in days from now: the wait for capacity, the port and every run. "
                    "None if no finish date.")
    trainium_lead_days: float = Field(0.0, ge=0, le=3650, allow_inf_nan=False, description="Days before Trainium capacity can be had.")
    gpu_lead_days: float = Field(0.0, ge=0, le=3650, allow_inf_nan=False, description="Days before the GPU capacity can be had, e.g. a Capacity Block's start.")
    port_during_lead: bool = Field(
        False, description="The team ports while it waits for Trainium capacity; by default the port starts once capacity is there."
    )

    @model_validator(mode="after")
    def _something_to_buy(self) -> AvailabilitySpec:
        if self.trainium == "unavailable" and self.gpu == "unavailable":
            raise ValueError("both sides are unavailable: there is nothing to compare")
        return self

    @model_validator(mode="after")
    def _deadlines_agree(self) -> AvailabilitySpec:
        # A plan that must be finished before the day its run may still start has two deadlines that
        # say different things: the author should keep the one meant.
        if self.finish_within_days is not None and self.needed_within_days is not None \
                and self.finish_within_days < self.needed_within_days:
            raise ValueError(f"finish_within_days ({self.finish_within_days}) is sooner than needed_within_days "
                             f"({self.needed_within_days}): a plan cannot finish before its run may start; keep one of them "
                             f"or give the finish date as the later")
        return self


class Rationale(Model):
    """Where each input comes from: a source or the reasoning behind it."""

    architecture: str | None = None
    run_size: str | None = None
    runs: str | None = None
    runs_per_architecture: str | None = None
    plan_months: str | None = None
    regions: str | None = None
    buy: str | None = None
    trainium: str | None = None
    gpu: str | None = None
    relative_throughput: str | None = None
    porting: str | None = None
    neuron_experience: str | None = None
    availability: str | None = None
    constraints: str | None = None


class Workload(Model):
    name: str = Field(min_length=1, max_length=80, description="Short name, e.g. research or production.")
    description: str | None = None
    architecture: Architecture = Field(description="Porting class of the model's architecture.")
    run_size: RunSize
    runs: int = Field(ge=1, le=1_000_000, description="Training runs planned.")
    runs_per_architecture: int | None = Field(
        None, ge=1, le=1_000_000, description="Runs before the architecture changes (each change is a new port); leave out if it stays."
    )
    plan_months: float | None = Field(
        None, gt=0, le=600, allow_inf_nan=False,
        description="Calendar months from the first run's start to the last run's end; leave out for runs back to back. Sets how long a commitment is held.",
    )
    regions: list[str] | None = Field(
        None, min_length=1,
        description="The only regions the workload may use, e.g. for data residency; other ways to buy are priced in each of them. "
                    "Leave out if any will do (other ways to buy are then priced in the region each side names).",
    )
    buy: list[Option] | None = Field(
        None,
        description="Ways the team would also buy, beside each side's named option: each side's plan is the cheapest of its named way "
                    "and these, in the regions it may use. Leave out to accept on-demand as well; [] keeps each side to its named way.",
    )
    trainium: Compute
    gpu: Compute
    relative_throughput: Estimate = Field(
        description="Training throughput of one Trainium instance over one GPU instance (1.0 = the same), with the range "
                    "you believe it lies in. The input most verdicts turn on and the one with the least public evidence: "
                    "a measurement of one representative job on one instance of each side beats any published figure; "
                    "without one, give a range wide enough for your doubt and see whether the verdict holds across it."
    )
    porting: Porting = Porting()
    neuron_experience: Experience = "none"
    availability: AvailabilitySpec = AvailabilitySpec()
    constraints: list[ConstraintName] = []
    rationale: Rationale = Rationale()

    @model_validator(mode="after")
    def _constraints_are_a_set(self) -> Workload:
        # A constraint named twice would count its weeks twice.
        dupes = sorted({c for c in self.constraints if self.constraints.count(c) > 1})
        if dupes:
            raise ValueError(f"constraints must not repeat (repeated: {', '.join(dupes)})")
        return self

    @model_validator(mode="after")
    def _plan_fits_its_finish(self) -> Workload:
        # Months the author spreads the runs over cannot also fit inside a sooner finish date.
        finish = self.availability.finish_within_days
        if finish is not None and self.plan_months is not None and self.plan_months * DAYS_PER_MONTH > finish:
            raise ValueError(f"plan_months ({self.plan_months:g}, {self.plan_months * DAYS_PER_MONTH:.0f} days) spreads the runs past "
                             f"availability.finish_within_days ({finish}): shorten the plan or move the finish date")
        return self

    @model_validator(mode="after")
    def _buy_is_a_set(self) -> Workload:
        if self.buy is not None:
            dupes = sorted({b for b in self.buy if self.buy.count(b) > 1})
            if dupes:
                raise ValueError(f"buy must not repeat a way (repeated: {', '.join(dupes)})")
        return self


class Scenario(Model):
    title: str = Field(min_length=1, max_length=200)
    summary: str = Field(min_length=1)
    expect: Lean = Field(description="The lean the author claims; validation fails when the engine disagrees.")
    sources: list[str] = Field(min_length=1, description="Where the situation and its inputs come from.")
    notes: str | None = None
    workloads: list[Workload] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_names(self) -> Scenario:
        names = [w.name for w in self.workloads]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"workload names must be unique (repeated: {', '.join(dupes)})")
        return self


def json_schema() -> dict:
    schema = Scenario.model_json_schema()
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_URL, **schema}


def json_schema_text() -> str:
    return json.dumps(json_schema(), indent=2, sort_keys=False) + "\n"
