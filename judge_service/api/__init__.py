"""The HTTP API (FastAPI): problems, batch judging, async submissions, health and metrics."""

from judge_service.api.app import create_app

__all__ = ["create_app"]
