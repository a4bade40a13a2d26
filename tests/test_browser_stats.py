"""/stats and /replay in a real browser: Playwright driving Debian's Chromium against `cavallo serve`.

The database holds finished games of every game of the table (and one game still played); /stats shows
their table and chart in each language and the player's own games with a link to each replay; the replay
steps through a game move by move with every hand shown, and refuses a game still played.  Screenshots
go to the test's folder, and to ``$CAVALLO_SCREENSHOTS`` when set.

They use tests/test_browser.py's browser: like those, they skip, saying so, without Playwright or
Chromium, unless ``CAVALLO_REQUIRE_BROWSER=1`` makes that a failure.
"""

from __future__ import annotations

import json

import httpx
import pytest

pytest.importorskip("sqlalchemy", reason="the table's database needs the runtime extra (sqlalchemy)")

# tests/test_browser.py's Chromium (its skip, or failure under CAVALLO_REQUIRE_BROWSER=1) and fixtures
from test_browser import browser, shots  # noqa: E402,F401  (fixtures)
from playwright.sync_api import expect  # noqa: E402

from cavallo_env.serve.settings import LANGUAGES, WEB  # noqa: E402
from people_fixtures import finished_game, played_games, store_with  # noqa: E402
from test_serve import start, stop  # noqa: E402

PLAYER = "p-anon-1"  # the player of people_fixtures' games


@pytest.fixture(scope="module")
def finished():
    return played_games(2) + [finished_game("briscola", "milanesi", 7, player_id="someone-else", ai="greedy")]


@pytest.fixture(scope="module")
def server(tmp_path_factory, finished):
    url_db = f"sqlite:///{tmp_path_factory.mktemp('db') / 'tables.sqlite3'}"
    store_with(url_db, finished).close()
    proc, url = start("greedy", 1, "--db", url_db)
    yield url
    stop(proc)


def _open(browser, url, path, lang="en", player=PLAYER):
    ctx = browser.new_context()
    script = f"localStorage.setItem('cavallo.lang', '{lang}');"
    if player:
        script += f"localStorage.setItem('cavallo.player', '{player}');"
    ctx.add_init_script(script)
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{url}{path}")
    page.wait_for_selector("body[data-ready='1']")
    return ctx, page, errors


def _words(lang):
    return json.loads((WEB / "i18n" / f"stats-{lang}.json").read_text("utf-8"))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_stats_show_the_table_chart_and_history_in_every_language(server, browser, shots, finished, lang):
    ctx, page, errors = _open(browser, server, "/stats", lang)
    words = _words(lang)
    lines = httpx.get(f"{server}/v1/stats").json()["lines"]
    expect(page.locator("#all-table tbody tr")).to_have_count(len(lines))
    expect(page.locator("#all-chart svg circle.score")).to_have_count(len(lines))
    expect(page.locator("#all-title")).to_have_text(words["all_title"])
    expect(page.locator("#all-table thead th").first).to_have_text(words["col_game"])
    mine = [f for f in finished if f.player_id == PLAYER]
    expect(page.locator("#history li")).to_have_count(len(mine))
    expect(page.locator("#history li a").first).to_have_text(words["replay"])
    assert page.evaluate("document.documentElement.lang") == lang
    shots(page, f"stats-{lang}")
    ctx.close()
    assert not errors, errors


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_table_page_links_to_the_stats_in_every_language(server, browser, lang):
    ctx, page, errors = _open(browser, server, "/", lang)
    link = page.locator("#stats-link")
    table_words = json.loads((WEB / "i18n" / f"{lang}.json").read_text("utf-8"))
    expect(link).to_have_text(table_words["statistics"])
    link.click()
    page.wait_for_url(f"{server}/stats")
    page.wait_for_selector("body[data-ready='1']")
    expect(page.locator("#all-title")).to_have_text(_words(lang)["all_title"])
    ctx.close()
    assert not errors, errors


def test_stats_switch_language_and_work_without_a_player(server, browser):
    ctx, page, errors = _open(browser, server, "/stats", "en", player=None)
    expect(page.locator("#mine-empty")).to_be_visible()
    expect(page.locator("#history li")).to_have_count(0)
    page.select_option("#lang", "fi")
    expect(page.locator("#all-title")).to_have_text(_words("fi")["all_title"])
    assert page.evaluate("localStorage.getItem('cavallo.lang')") == "fi"
    ctx.close()
    assert not errors, errors


def test_a_finished_game_replays_move_by_move_with_every_hand(server, browser, shots):
    ctx, page, errors = _open(browser, server, "/stats", "en")
    scopa = page.locator("#history li", has_text="Scopa").first
    with page.expect_navigation():
        scopa.locator("a").click()
    page.wait_for_selector("body[data-ready='1']")
    table_id = page.evaluate("new URLSearchParams(location.search).get('table')")
    game = httpx.get(f"{server}/v1/stats/games/{table_id}").json()
    first = game["frames"][0]
    words = _words("en")
    expect(page.locator("#move")).to_have_text(words["start_of_deal"].replace("{n}", "1"))
    for seat, hand in enumerate(first["hands"]):
        shown = page.locator(".seat").nth(seat).locator(".card")
        expect(shown).to_have_count(len(hand))
        assert [shown.nth(i).get_attribute("data-card") for i in range(len(hand))] == hand
    expect(page.locator("#middle .card")).to_have_count(len(first["public"]["table"]))
    # the table page's SVG faces where it has them (web/cards.js), else text cards
    drawn = "svg" if (WEB / "cards.js").exists() else "text"
    assert drawn in page.locator(".seat .card").first.get_attribute("class").split()
    page.click("#next")
    mv = game["frames"][1]["move"]
    expect(page.locator(f".seat:nth-child({mv['seat'] + 1})")).to_have_class("seat who-" + game["seats"][mv["seat"]]["who"]
                                                                              + " moved")
    assert page.locator(f".seat:nth-child({mv['seat'] + 1}) .card[data-card='{mv['play']}']").count() == 0
    page.keyboard.press("End")
    expect(page.locator("#deal-end")).to_contain_text(words["game_over"].split(":")[0])
    expect(page.locator("#next")).to_be_disabled()
    shots(page, "replay-scopa-end")
    page.keyboard.press("Home")
    expect(page.locator("#first")).to_be_disabled()
    ctx.close()
    assert not errors, errors


def test_a_game_still_played_is_not_replayed(server, browser):
    r = httpx.post(f"{server}/v1/tables", json={"game": "briscola", "deck": "milanesi"})
    assert r.status_code == 201, r.text
    ctx, page, errors = _open(browser, server, f"/replay?table={r.json()['id']}", "nl")
    expect(page.locator("#status")).to_have_text(_words("nl")["not_found"])
    expect(page.locator("#game")).to_be_hidden()
    assert page.locator(".card").count() == 0
    ctx.close()
    assert not errors, errors


def test_a_briscola_replay_shows_the_trick_just_taken(server, browser, finished):
    fg = next(f for f in finished if f.game == "briscola" and f.player_id == PLAYER)
    ctx, page, errors = _open(browser, server, f"/replay?table={fg.table_id}", "en")
    words = _words("en")
    expect(page.locator("#middle-title")).to_have_text(words["trick"])
    expect(page.locator(".trump .card")).to_have_count(1)
    page.click("#next")
    page.click("#next")  # the second card of the first trick: the trick is taken
    first, second = fg.record["moves"][:2]
    expect(page.locator("#middle-title")).to_have_text(words["trick_done"])
    expect(page.locator("#middle .card")).to_have_count(2)
    assert [page.locator("#middle .card").nth(i).get_attribute("data-card") for i in (0, 1)] == \
        [first["play"], second["play"]]
    page.click("#next")
    expect(page.locator("#middle-title")).to_have_text(words["trick"])
    ctx.close()
    assert not errors, errors
