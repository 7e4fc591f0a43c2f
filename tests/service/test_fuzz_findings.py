"""What the schemathesis run (test_schemathesis.py) found, each pinned by a
plain request, on SQLite and PostgreSQL: a JSON body FastAPI cannot read is a 422 (it
was an undocumented 400); a period number past what the database stores names no
period, a 404 (it was a 500, on the pages too); every API operation documents the
answers any request may get (413, 429, 503); a report filed again answers a documented
200."""

from __future__ import annotations

import pytest

from chessrate.samples import sample_text
from chessrate.service.routes.responses import COMMON_RESPONSES

from .conftest import Api, MakeApi


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (b'{"id": "caf\xe9"}', "not UTF-8"),  # latin-1, not UTF-8
        (b"\xff\xfe\x00", "not UTF-8"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    ],
)
def test_a_json_body_that_cannot_be_read_is_a_422(site: Api, body: bytes, words: str) -> None:
    for path in ("/players", "/games", "/live-games", "/seeks", "/preview"):
        answer = site.client.post(
            f"/api/v1{path}",
            content=body,
            headers={**site.writer, "Content-Type": "application/json"},
        )
        assert answer.status_code == 422, (path, answer.text)
        [error] = answer.json()["detail"]
        assert error["type"] == "json_invalid"
        assert error["field"] == "body"
        assert words in error["msg"]


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/fide/periods/{n}",
        "/api/v1/fide/periods/{n}/list",
        "/api/v1/fide/periods/{n}/list.csv",
        "/api/v1/fide/periods/{n}/tournaments/1",
        "/api/v1/fide/periods/{n}/reports/p1",
        "/periods/{n}",
        "/periods/{n}/list.csv",
        "/periods/{n}/tournaments/1",
        "/periods/{n}/reports/p1",
    ],
)
def test_a_period_number_no_database_holds_is_not_found(make_api: MakeApi, path: str) -> None:
    # 2**63 overflowed SQLite's and PostgreSQL's 64-bit integers: a 500, on the API
    # (found by schemathesis) and on the pages alike.
    fide = make_api("fide")
    for n in (2**63, -(2**63) - 1, 10**30, 0, -1):
        answer = fide.client.get(path.format(n=n))
        assert answer.status_code == 404, (n, answer.text)
    closing = fide.post(f"/fide/periods/{2**63}/close")
    assert closing.status_code == 404, closing.text
    trf = sample_text("fide_seed_round_robin.trf").encode()
    upload = fide.post(f"/fide/periods/{2**63}/files?name=x.trf", content=trf)
    assert upload.status_code == 404, upload.text


def test_every_api_operation_documents_the_common_answers(site: Api) -> None:
    document = site.client.get("/openapi.json").json()
    operations = [
        (method, path, operation)
        for path, item in document["paths"].items()
        if path.startswith("/api/v1/")
        for method, operation in item.items()
    ]
    assert len(operations) > 40
    for method, path, operation in operations:
        documented = set(operation["responses"])
        assert {str(code) for code in COMMON_RESPONSES} <= documented, (method, path)


def test_a_report_filed_again_is_a_documented_200(site_pair: Api) -> None:
    site_pair.player("cy")
    site_pair.game("g1", "alice", "bob", "1-0", time_control="180+2", plies=40)
    first = site_pair.post("/games/g1/reports", {"by": "cy", "reason": "engine"})
    again = site_pair.post("/games/g1/reports", {"by": "cy", "reason": "engine"})
    assert (first.status_code, again.status_code) == (201, 200), again.text
    assert again.json()["id"] == first.json()["id"]
    document = site_pair.client.get("/openapi.json").json()
    answers = document["paths"]["/api/v1/games/{game_id}/reports"]["post"]["responses"]
    assert {"200", "201"} <= set(answers)
