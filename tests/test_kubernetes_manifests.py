"""The Kubernetes manifests render (``kubectl kustomize``) and validate offline against the
Kubernetes API's schemas (``kubernetes-validate``), for both overlays, and say what they must:
ports that meet, probes on /health, the node's socket and cgroup files for the workers, CPU
slots that follow the workers' CPU requests."""

from __future__ import annotations

import base64
import shutil
import subprocess
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1] / "deploy" / "kubernetes"
KUBERNETES_VERSION = "1.30"
# KEDA's kinds are custom resources: kubernetes-validate knows only the API's own.
KEDA_KINDS = {"ScaledObject", "TriggerAuthentication"}

pytestmark = pytest.mark.skipif(
    shutil.which("kubectl") is None, reason="kubectl (its built-in kustomize) is not installed"
)


def _render(overlay: str) -> list[dict[str, Any]]:
    rendered = subprocess.run(
        ["kubectl", "kustomize", str(ROOT / "overlays" / overlay)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return [document for document in yaml.safe_load_all(rendered) if document]


def _one(objects: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    (found,) = [o for o in objects if o["kind"] == kind and o["metadata"]["name"] == name]
    return found


def _env(container: dict[str, Any]) -> dict[str, Any]:
    return {entry["name"]: entry for entry in container.get("env", [])}


@pytest.mark.parametrize("overlay", ["trial", "production"])
def test_every_object_validates_against_the_kubernetes_schemas(overlay: str) -> None:
    objects = _render(overlay)
    for obj in objects:
        if obj["kind"] in KEDA_KINDS:
            assert obj["apiVersion"] == "keda.sh/v1alpha1" and obj["spec"], obj
            continue
        kubernetes_validate.validate(obj, KUBERNETES_VERSION, strict=True)


@pytest.mark.parametrize("overlay", ["trial", "production"])
def test_the_api_is_probed_on_health_behind_its_service(overlay: str) -> None:
    objects = _render(overlay)
    deployment = _one(objects, "Deployment", "judge-api")
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    (port,) = container["ports"]
    assert container["args"][-1] == str(port["containerPort"])  # serve --port
    for probe in ("readinessProbe", "livenessProbe"):
        assert container[probe]["httpGet"] == {"path": "/health", "port": port["name"]}
    service = _one(objects, "Service", "judge-api")
    assert service["spec"]["ports"][0]["targetPort"] == port["name"]
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert all(labels.get(key) == value for key, value in service["spec"]["selector"].items())
    sources = {next(iter(source.values()))["name"] for source in container["envFrom"]}
    assert sources == {_generated_name(objects, "judge-config"), _secret_name(objects)}


def _generated_name(objects: list[dict[str, Any]], prefix: str) -> str:
    """The generated ConfigMap's name (kustomize appends a hash of its content)."""
    (name,) = [o["metadata"]["name"] for o in objects if o["metadata"]["name"].startswith(prefix)]
    return name


def _secret_name(objects: list[dict[str, Any]]) -> str:
    generated = [o["metadata"]["name"] for o in objects if o["kind"] == "Secret"]
    return generated[0] if generated else "judge-secrets"  # production: the operator's own


@pytest.mark.parametrize("overlay", ["trial", "production"])
def test_workers_drive_their_nodes_docker_with_slots_from_their_cpu_request(overlay: str) -> None:
    objects = _render(overlay)
    pod = _one(objects, "Deployment", "judge-worker")["spec"]["template"]["spec"]
    assert pod["hostPID"] is True and pod["nodeSelector"] == {"judge.dev/sandboxes": "true"}
    anti = pod["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert anti[0]["topologyKey"] == "kubernetes.io/hostname"  # one worker per node
    (container,) = pod["containers"]
    volumes = {volume["name"]: volume["hostPath"]["path"] for volume in pod["volumes"]}
    mounts = {mount["name"]: mount["mountPath"] for mount in container["volumeMounts"]}
    assert volumes["docker-socket"] == mounts["docker-socket"] == "/var/run/docker.sock"
    assert volumes["cpu-slots"] == mounts["cpu-slots"] == "/tmp/judge-cpu-slots"
    assert volumes["cgroup"] == "/sys/fs/cgroup"
    env = _env(container)
    assert env["JUDGE_HOST_CGROUP_DIR"]["value"] == mounts["cgroup"]
    assert env["JUDGE_CPU_SLOTS_DIR"]["value"] == mounts["cpu-slots"]
    assert env["JUDGE_SANDBOX_CHANNEL_DIR"]["value"] == mounts["channels"] == volumes["channels"]
    for name, resource in (
        ("JUDGE_CPU_SLOTS", "requests.cpu"),
        ("JUDGE_WORKER_CONCURRENCY", "requests.cpu"),
        ("JUDGE_SANDBOX_MEMORY_TOTAL_MB", "requests.memory"),
    ):
        reference = env[name]["valueFrom"]["resourceFieldRef"]
        assert reference["resource"] == resource and reference["containerName"] == "worker"
    requests = container["resources"]["requests"]
    assert int(requests["cpu"]) >= 1 and requests["memory"].endswith("Gi")
    (init,) = pod["initContainers"]  # the sandbox images, built on the node's daemon
    assert init["args"] == ["images", "build"] and init["image"] == container["image"]


def test_the_trial_runs_its_dependencies_and_names_them_in_its_secret() -> None:
    objects = _render("trial")
    assert {o["metadata"].get("namespace") for o in objects if o["kind"] != "Namespace"} == {
        "judge-trial"
    }
    for name, port in (("judge-redis", 6379), ("judge-postgres", 5432)):
        assert _one(objects, "Service", name)["spec"]["ports"][0]["port"] == port
    (secret,) = [o for o in objects if o["kind"] == "Secret"]
    values = {key: base64.b64decode(value).decode() for key, value in secret["data"].items()}
    assert values["JUDGE_BROKER_URL"] == "redis://judge-redis:6379/0"
    assert "@judge-postgres:5432/" in values["JUDGE_DATABASE_URL"]


def test_production_scales_workers_on_the_queue_and_brings_no_database() -> None:
    objects = _render("production")
    kinds = {o["kind"] for o in objects}
    assert "StatefulSet" not in kinds and "Secret" not in kinds  # external, the operator's
    scaled = _one(objects, "ScaledObject", "judge-worker")
    assert scaled["spec"]["scaleTargetRef"]["name"] == "judge-worker"
    (trigger,) = scaled["spec"]["triggers"]
    config = _one(objects, "ConfigMap", _generated_name(objects, "judge-config"))
    assert trigger["type"] == "redis"
    assert trigger["metadata"]["listName"] == config["data"]["JUDGE_QUEUE_NAME"]
    assert _one(objects, "HorizontalPodAutoscaler", "judge-api")["spec"]["minReplicas"] >= 2
