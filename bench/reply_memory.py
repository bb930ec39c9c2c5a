"""Size of a loud /submit reply and what it costs the API process's memory.

One /submit with run_all_cases on 25 tests, each printing 1 MiB to stdout and 1 MiB to stderr,
through the real app (in-process dispatcher, real sandboxes), in a fresh process so that its
peak RSS is this request's. Prints the response size, the program output it carries, how many
tests were cut, and the peak RSS growth of the process over the request.

    .venv/bin/python bench/reply_memory.py [--tests 25]
"""

from __future__ import annotations

import argparse
import resource
import tempfile

from fastapi.testclient import TestClient

from judge_service.api import create_app
from judge_service.settings import Settings

LOUD = "import sys\nsys.stdout.write('o' * (1 << 20))\nsys.stderr.write('e' * (1 << 20))\n"


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=25)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        settings = Settings(
            database_url=f"sqlite:///{directory}/judge.db",
            sandboxes_per_language=1,
            complexity_empirical=False,
        )
        request = {
            "dataset": "inline",
            "id": 1,
            "completion": f"```python\n{LOUD}```",
            "config": {
                "dataset_type": "CommonOJDataset",
                "language": "python",
                "provided_data": {
                    "id": 1,
                    "test": [{"input": {"stdin": ""}, "output": {"stdout": "x"}}] * args.tests,
                },
                "extra": {"run_all_cases": True},
            },
        }
        with TestClient(create_app(settings)) as client:
            # A warm-up request starts the sandbox and imports everything a request touches.
            client.post("/run_code", json={"code": "print(1)", "language": "python"})
            before = peak_rss_mib()
            response = client.post("/submit", json=request)
            grown = peak_rss_mib() - before
    runs = [test["exec_info"]["run_result"] for test in response.json()["tests"]]
    output = sum(len(run["stdout"]) + len(run["stderr"]) for run in runs)
    cut = sum(bool(run.get("truncated")) for run in runs)
    print(f"status {response.status_code}, {len(runs)} tests, {cut} truncated")
    print(
        f"response {len(response.content) / 2**20:.1f} MiB, program output {output / 2**20:.1f} MiB"
    )
    print(f"API process peak RSS +{grown:.0f} MiB")


if __name__ == "__main__":
    main()
