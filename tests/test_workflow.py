"""The GitHub Actions workflow: pinned actions, least privilege, deploys only from main."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml
from conftest import ROOT

WORKFLOW = ROOT / ".github" / "workflows" / "site.yml"


@pytest.fixture(scope="module")
def workflow() -> dict[str, Any]:
    document: dict[str, Any] = yaml.safe_load(WORKFLOW.read_text())
    return document


def test_every_action_is_pinned_to_a_commit() -> None:
    uses = re.findall(r"uses:\s*(\S+)(.*)", WORKFLOW.read_text())
    assert len(uses) >= 5
    for action, comment in uses:
        name, _, ref = action.partition("@")
        assert re.fullmatch(r"[0-9a-f]{40}", ref), f"{name} is not pinned to a commit: {ref!r}"
        assert re.search(r"#\s*v\d+\.\d+\.\d+", comment), f"{name}: say which release the SHA is"


def test_permissions_start_at_none_and_only_deploy_writes(workflow: dict[str, Any]) -> None:
    assert workflow["permissions"] == {}
    jobs = workflow["jobs"]
    for name, job in jobs.items():
        assert "permissions" in job, f"job {name} must say what it needs"
        writes = {scope for scope, level in job["permissions"].items() if level == "write"}
        expected = {"pages", "id-token"} if name == "deploy" else set()
        assert writes == expected, f"job {name} writes {writes}"


def test_tests_gate_a_strict_build_that_deploys_only_from_main(workflow: dict[str, Any]) -> None:
    jobs = workflow["jobs"]
    test_steps = [step.get("run", "") for step in jobs["test"]["steps"]]
    assert ".ci/run" in test_steps
    assert jobs["build"]["needs"] == "test"
    assert "refs/heads/main" in jobs["build"]["if"]
    assert "pull_request" in jobs["build"]["if"]
    runs = " ".join(step.get("run", "") for step in jobs["build"]["steps"])
    assert "make archive" in runs  # which runs make build, the strict build
    site_url = [step.get("env", {}).get("SITE_URL") for step in jobs["build"]["steps"]]
    assert "${{ steps.pages.outputs.base_url }}/" in site_url
    env = next(step["env"] for step in jobs["build"]["steps"] if "env" in step)
    assert env["PE_REPO_URL"] == "${{ github.server_url }}/${{ github.repository }}"
    assert env["PE_EDIT_URI"] == "edit/${{ github.ref_name }}/docs/"
    assert jobs["deploy"]["needs"] == "build"
    assert jobs["deploy"]["environment"]["name"] == "github-pages"


def test_the_makefile_archive_target_builds_strictly() -> None:
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^archive: build$", makefile, re.M)
    assert re.search(r"^build: .*\n\t.*mkdocs build --strict", makefile, re.M)


def test_the_site_reads_the_repository_from_the_workflow() -> None:
    """mkdocs.yml takes repo_url and edit_uri from the variables the build step sets."""
    config = (ROOT / "mkdocs.yml").read_text()
    # No made-up default: a local build links to the clone's origin remote, if any.
    assert re.search(r"^repo_url: !ENV \[PE_REPO_URL, null\]$", config, re.M)
    assert re.search(r"^edit_uri: !ENV \[PE_EDIT_URI, null\]$", config, re.M)


def test_make_build_also_builds_the_wheel_and_the_sdist() -> None:
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(
        r"^build: .*\n\t.*mkdocs build --strict\n\t.*hatchling build -d dist$", makefile, re.M
    )
