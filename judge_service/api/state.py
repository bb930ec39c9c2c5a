"""What the app holds for its lifetime: settings, store, dispatcher, service, metrics."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from judge_service.dispatch import Dispatcher
from judge_service.metrics import Metrics
from judge_service.service import JudgeService
from judge_service.settings import Settings
from judge_service.store.repository import Store


@dataclass
class AppState:
    settings: Settings
    store: Store
    dispatcher: Dispatcher
    metrics: Metrics
    service: JudgeService
    background: set[asyncio.Task[None]] = field(default_factory=set)
