"""Serve a folder on 127.0.0.1 with gzip, as a real host would (for benchmarks/lighthouse.sh).

    python benchmarks/serve_gzip.py FOLDER PORT
"""

from __future__ import annotations

import functools
import gzip
import io
import sys
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


class GzipHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass

    def send_head(self):
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        if "gzip" not in self.headers.get("Accept-Encoding", "") or not path.is_file():
            return super().send_head()
        body = gzip.compress(path.read_bytes(), 6)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "max-age=3600")
        self.end_headers()
        return io.BytesIO(body)


if __name__ == "__main__":
    folder, port = sys.argv[1], int(sys.argv[2])
    ThreadingHTTPServer(("127.0.0.1", port), functools.partial(GzipHandler, directory=folder)).serve_forever()
