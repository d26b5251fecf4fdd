"""vl-convert's JavaScript work for the process that generates the pages: compiling Vega-Lite to Vega
and bundling the Vega runtime. A lone build runs it in one worker process of its own, ended once
the pages are generated: the engine takes some 100 MB that a process never gives back, which a
cold build at 3,000 scenarios held beside its image workers until its last image was in. Under
`mkdocs serve` it runs in the serving process, where a save that brings a new shape of chart
would otherwise wait for a process to start.
"""

from __future__ import annotations

from typing import Any

import vl_convert as vlc

from generator.rendering.charts.images import Workers


def _call(name: str, *args: Any, **kwargs: Any) -> Any:
    # By name, looked up where it runs: the worker's own vl-convert.
    return getattr(vlc, name)(*args, **kwargs)


class JsEngine:
    """apart: run the work in a worker process of its own, started on first use."""

    def __init__(self, *, apart: bool) -> None:
        self.apart = apart
        self._worker = Workers(size=1)

    def _run(self, name: str, *args: Any, **kwargs: Any) -> Any:
        if not self.apart:
            return _call(name, *args, **kwargs)
        return self._worker.pool().submit(_call, name, *args, **kwargs).result()

    def vegalite_to_vega(self, spec: dict[str, Any]) -> dict[str, Any]:
        return self._run("vegalite_to_vega", spec)

    def javascript_bundle(self, snippet: str) -> str:
        return self._run("javascript_bundle", snippet=snippet)

    def close(self) -> None:
        """Ends the worker; what comes after runs in this process."""
        self.apart = False
        self._worker.close()


IN_PROCESS = JsEngine(apart=False)
