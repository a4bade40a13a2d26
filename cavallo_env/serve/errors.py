"""The app's errors as JSON answers: a malformed view (422 with the field-by-field ``errors``), an
inconsistent one (422), a table's refusal (its status and ``code``), a bot past its time limit (503), the table
database failing (503)."""

from __future__ import annotations

import logging

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import DBAPIError

from ..errors import ViewError
from ..tables import TableError, shown
from .runner import BotTimeout


def _error_text(err: dict) -> str:
    loc = ".".join(str(p) for p in err.get("loc", ()) if p != "body")
    if err.get("type") == "json_invalid":
        ctx = err.get("ctx") or {}
        return f"the body is not valid JSON: {ctx.get('error', err.get('msg'))}"
    if loc == "" and err.get("type") in ("missing", "model_attributes_type", "model_type"):
        return "the body must be a JSON object (a view) sent as Content-Type: application/json"
    return f"{loc or 'body'}: {err.get('msg')}"


def validation_response(errors) -> JSONResponse:
    """422 for pydantic's ``errors``: the first five in ``detail``, up to 50 in ``errors`` (each text escaped)."""
    text = "; ".join(_error_text(e) for e in errors[:5])
    if len(errors) > 5:
        text += f"; and {len(errors) - 5} more"
    safe = []
    for e in errors[:50]:
        loc = list(e.get("loc", ()))
        if loc[:1] != ["body"]:
            loc.insert(0, "body")
        safe.append({"loc": [p if isinstance(p, int) else shown(str(p), None) for p in loc],
                     "msg": shown(str(e.get("msg")), None), "type": str(e.get("type"))})
    return JSONResponse({"detail": shown(f"invalid view: {text}", None), "errors": safe}, status_code=422)


async def _invalid(request: Request, exc: RequestValidationError):
    return validation_response(exc.errors())


async def _inconsistent(request: Request, exc: ViewError):
    return JSONResponse({"detail": shown(f"invalid view: {exc}", None)}, status_code=422)


async def _refused(request: Request, exc: TableError):
    return JSONResponse({"detail": shown(str(exc), None), "code": exc.code}, status_code=exc.status)


async def _slow(request: Request, exc: BotTimeout):
    move_timeout = request.app.state.service.move_timeout
    return JSONResponse({"detail": f"the bot took longer than the move time limit of {move_timeout:g} s"},
                        status_code=503)


async def _database(request: Request, exc: DBAPIError):
    logging.getLogger("uvicorn.error").error("the table database failed: %s", str(exc).splitlines()[0][:300])
    return JSONResponse({"detail": "the table's database did not answer: try again", "code": "refused"},
                        status_code=503)


#: the app's exception handlers (``FastAPI(exception_handlers=HANDLERS)``)
HANDLERS = {RequestValidationError: _invalid, ViewError: _inconsistent, TableError: _refused, BotTimeout: _slow,
            DBAPIError: _database}
