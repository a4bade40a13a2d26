"""``GET /v1/health`` (is the service up, with which bot and model) and ``/``, the table's page."""

from __future__ import annotations

import time

from fastapi import APIRouter
from fastapi.responses import FileResponse

from ... import __version__
from ..schemas import Health
from ..service import Svc, public_info, public_spec
from ..settings import API_VERSION, WEB

router = APIRouter()


@router.get("/", include_in_schema=False)
async def _root():
    return FileResponse(str(WEB / "index.html"), media_type="text/html; charset=utf-8")


@router.get(f"/{API_VERSION}/health", response_model=Health, summary="Is the service up, and with which model")
async def health(svc: Svc):
    bot = svc.bot
    info = bot.info if hasattr(bot, "info") else None
    return {
        "status": "ok", "bot": public_spec(getattr(bot, "name", svc.bot_spec)), **svc.top, "games": svc.versions,
        "cavallo_env": __version__,
        "model": public_info(info),
        "uptime_s": round(time.time() - svc.started, 3), "tables": len(svc.store or ()),
    }
