"""Run a command with no network, to prove the site builds offline.

``unshare -rn`` gives the command a network namespace of its own, with no
interface but a loopback that is down: no connection can leave. Where the
kernel does not allow that (some containers and CI runners), every proxy
variable points at a closed local port instead, which stops HTTP from Python
libraries. The test suite's cold build and ``make timing`` both build this way.
"""

from __future__ import annotations

import functools
import shutil
import subprocess

# Proxies on a closed local port: any HTTP(S) request a library makes fails.
DEAD_PROXY = dict.fromkeys(
    ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy"), "http://127.0.0.1:9"
)


@functools.cache
def isolation() -> tuple[tuple[str, ...], str]:
    """Return the command prefix that cuts the network off, and its name."""
    unshare = shutil.which("unshare")
    if unshare and subprocess.run([unshare, "-rn", "true"], capture_output=True).returncode == 0:
        return (unshare, "-rn"), "network namespace (unshare -rn)"
    return (), "dead proxies"


def offline(command: list[str], env: dict[str, str]) -> tuple[list[str], dict[str, str]]:
    """Return `command` and `env` changed so that the command runs with no network."""
    kept = {name: value for name, value in env.items() if name.lower() != "no_proxy"}
    return [*isolation()[0], *command], {**kept, **DEAD_PROXY}
