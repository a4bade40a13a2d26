"""The table in a real browser: Playwright driving Debian's Chromium against `cavallo serve`.

Each game is played for a whole deal by clicking (capture choices by clicking
the hand card, then the table cards, then Play), the language is switched,
a game is played with the keyboard alone, a phone-sized screen is checked,
and every JSON answer the page received is checked against the game's hidden
cards.  Screenshots of each game's table and end screen go to the test's
folder, and to ``$CAVALLO_SCREENSHOTS`` when set (docs/table.md shows them).

Chromium comes from Debian (``apt-get install chromium``; ``make test`` does
it as root): Playwright's own browser download is not used.  Without it these
tests skip, saying so, unless ``CAVALLO_REQUIRE_BROWSER=1`` (``make test``
sets it) makes that a failure.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from cavallo_env import games
from test_table import hidden_in, strings_in

CHROMIUM = os.environ.get("CAVALLO_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


def _missing() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install -e '.[dev]')"
    if not os.path.exists(CHROMIUM):
        return f"no Chromium at {CHROMIUM} (apt-get install chromium, or set CAVALLO_CHROMIUM)"
    return None


if _missing():
    if os.environ.get("CAVALLO_REQUIRE_BROWSER") == "1":
        raise RuntimeError(f"browser tests required but {_missing()}")
    pytest.skip(_missing(), allow_module_level=True)

from playwright.sync_api import expect, sync_playwright  # noqa: E402


@pytest.fixture(scope="module")
def server():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "cavallo_env.cli", "serve", "--port", str(port), "--table-seeds",
                             "--tables-per-client", "100"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while True:
        try:
            if httpx.get(f"{url}/v1/health", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            if proc.poll() is not None or time.time() > deadline:
                proc.kill()
                pytest.fail(f"cavallo serve did not start: {proc.stdout.read()}")
            time.sleep(0.1)
    yield url
    proc.terminate()
    proc.wait(10)


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    dirs = [tmp_path_factory.mktemp("screenshots")]
    if os.environ.get("CAVALLO_SCREENSHOTS"):
        dirs.append(Path(os.environ["CAVALLO_SCREENSHOTS"]))
        dirs[-1].mkdir(parents=True, exist_ok=True)

    def save(page, name):
        for d in dirs:
            page.screenshot(path=str(d / f"{name}.png"), full_page=True)
        assert (dirs[0] / f"{name}.png").stat().st_size > 5000
    return save


class Page:
    """A browser tab on the table page that records every JSON answer of the table API."""

    def __init__(self, browser, url, lang="en", **context):
        self.ctx = browser.new_context(**context)
        self.ctx.add_init_script(f"localStorage.setItem('cavallo.lang', '{lang}')")
        self.page = self.ctx.new_page()
        self.answers = []
        self.errors = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("response", self._seen)
        self.page.goto(f"{url}/?pace=30")
        self.page.wait_for_selector("body[data-ready='1']")

    def _seen(self, response):
        if "/v1/tables" in response.url and response.request.method in ("GET", "POST") and response.ok:
            try:
                self.answers.append(response.json())
            except Exception:  # the page left while the body was on its way
                pass

    def close(self):
        self.ctx.close()
        assert not self.errors, self.errors


def hidden_by_move(url, answers):
    """For each move count of the game the page played: the cards seat 0 must not see then.

    The table's game is rebuilt from its seed and the moves of its record.
    """
    first = answers[0]
    game = games.get(first["game"])
    record = httpx.get(f"{url}/v1/tables/{first['id']}/record").json()
    final = game.replay(record)
    seed = [a["seed"] for a in answers if a["done"]]  # told only once the game is over
    assert len(seed) >= 1 and all("seed" not in a for a in answers if not a["done"])
    state = game.new_state(seed[0], **first["options"])
    out = {}
    moves = final.moves
    for n, m in enumerate(moves):
        out[n] = hidden_in(game, state, first["deck"])
        game.play(state, m[1] if game.name == "briscola" else (m[1], tuple(m[2])))
    out[len(moves)] = hidden_in(game, state, first["deck"])
    return out


def check_nothing_hidden(url, answers):
    tables = [a for a in answers if isinstance(a, dict) and "view" in a]
    assert tables, "the page received no table"
    hidden = hidden_by_move(url, tables)
    for a in tables:
        shown = dict(a)
        if a["last"] and a["last"]["deal_ended"]:
            shown.pop("last")  # the previous deal's last move
        leaked = hidden[a["moves"]] & strings_in(shown)
        assert not leaked, f"move {a['moves']}: the page received hidden cards {leaked}"
    return len(tables)


def wait_turn_or_end(page, timeout=60_000):
    """Until it is seat 0's turn (the page idle) or the end-of-deal screen is up."""
    page.wait_for_function(
        "document.getElementById('end-dialog').open || document.body.dataset.ready === '1' && "
        "document.body.dataset.yourTurn === '1' && document.body.dataset.pending !== '1'", timeout=timeout)


def play_one(page, pick=-1):
    """Seat 0's turn: click a hand card; when it has several moves (the table cards to take), pick
    the ``pick``-th move that takes cards by clicking those table cards, then Play."""
    hand = page.locator("#hand .card")
    moves = int(page.evaluate("document.body.dataset.moves"))
    count = hand.count()
    page.evaluate("window.__clicked = (window.__clicked || 0) + 1")
    hand.nth(int(page.evaluate("window.__clicked")) % count).click()
    choices = page.locator("#choice-list .choice")
    if page.locator("#choices").is_visible():
        captures = [choices.nth(i).get_attribute("data-capture") for i in range(choices.count())]
        assert len(captures) >= 2, "choices offered for a card with one move"
        with_capture = [c for c in captures if c]
        wanted = with_capture[pick].split(",")
        for card in wanted:
            page.locator(f"#felt .card[data-card='{card}']").click()
        expect(page.locator(f"#choice-list .choice[data-capture='{with_capture[pick]}']")).to_have_attribute(
            "aria-pressed", "true")
        page.click("#play-selected")
    page.wait_for_function(f"Number(document.body.dataset.moves) > {moves}")


def play_by_clicking(tab, max_moves=200):
    """Play seat 0's moves by clicking until a deal ends; returns the number of moves clicked."""
    page = tab.page
    for clicked in range(max_moves):
        wait_turn_or_end(page)
        if page.evaluate("document.getElementById('end-dialog').open"):
            return clicked
        play_one(page)
    raise AssertionError("no end of the deal")


def open_tab(browser, url, **kw):
    return Page(browser, url, **kw)


@pytest.mark.parametrize("game,deck", [("cavalloicera", "bresciane"), ("briscola", "bresciane"),
                                       ("briscola", "milanesi"), ("scopa", "milanesi")])
def test_a_whole_deal_by_clicking(server, browser, shots, game, deck):
    tab = open_tab(browser, server)
    page = tab.page
    page.click(f"button.start[data-game='{game}'][data-deck='{deck}']")
    page.wait_for_selector("body[data-table]")
    wait_turn_or_end(page)
    # a table card that no legal set of the chosen card holds is refused, saying why (the deal is
    # random: the table may be empty at this turn, e.g. swept)
    if game != "briscola" and page.locator("#felt .card").count():
        page.locator("#felt .card").first.click()
        expect(page.locator("#status")).not_to_be_empty()
    shots(page, f"{game}-{deck}-table")
    n = play_by_clicking(tab)
    assert n >= 5
    dialog = page.locator("#end-dialog")
    expect(dialog).to_be_visible()
    rows = page.locator("#end-table tbody tr")
    keys = games.get(game).breakdown_keys
    assert rows.count() >= len(keys) + 1
    shots(page, f"{game}-{deck}-end")
    if game == "scopa":  # a match: the next deal follows
        expect(page.locator("#end-continue")).to_be_visible()
        assert "11" in page.locator("#end-match").inner_text()
        page.click("#end-continue")
        page.wait_for_timeout(200)
        assert not dialog.is_visible()
    else:
        expect(page.locator("#end-again")).to_be_visible()
        verdict = page.locator("#end-verdict").inner_text()
        assert verdict
        answers = list(tab.answers)
        assert check_nothing_hidden(server, answers) > n
        page.click("#end-again")  # play again: a new table of the same game
        page.wait_for_function(f"document.body.dataset.table !== '{answers[0]['id']}'")
    tab.close()


def test_scopa_match_hides_nothing_across_deals(server, browser):
    """A Scopa match played to its end by clicking; every answer checked against the hidden cards."""
    tab = open_tab(browser, server)
    page = tab.page
    page.click("button.start[data-game='scopa']")
    page.wait_for_selector("body[data-table]")
    for _ in range(30):
        play_by_clicking(tab)
        if page.locator("#end-again").is_visible():
            break
        page.click("#end-continue")
    else:
        raise AssertionError("the match did not end")
    assert check_nothing_hidden(server, tab.answers) > 36
    tab.close()


def test_languages(server, browser):
    tab = open_tab(browser, server)
    page = tab.page
    for lang in ("nl", "fi", "ru", "en"):
        page.select_option("#lang", lang)
        words = httpx.get(f"{server}/static/i18n/{lang}.json").json()
        expect(page.locator("html")).to_have_attribute("lang", lang)
        expect(page.locator("button.start").first).to_have_text(words["start_game"])
        for key in ("choose_game", "settings", "language"):
            expect(page.locator(f"[data-i18n='{key}']").first).to_have_text(words[key])
        page.locator(".game button[aria-expanded]").first.click()
        rules = httpx.get(f"{server}/static/rules/{lang}.json").json()
        expect(page.locator(".rules-inline").first).to_contain_text(rules["cavalloicera"]["sections"][0]["heading"])
        page.locator(".game button[aria-expanded]").first.click()
    page.select_option("#lang", "fi")
    page.click("button.start[data-game='briscola'][data-deck='milanesi']")
    page.wait_for_selector("body[data-table]")
    fi = httpx.get(f"{server}/static/i18n/fi.json").json()
    expect(page.locator("#felt-title")).to_have_text(fi["trick"])
    expect(page.locator("[data-i18n='your_hand']")).to_have_text(fi["your_hand"])
    tab.close()


def test_keyboard_only(server, browser):
    """Start Cavalloìcera and play moves with Tab, Enter and Space alone."""
    tab = open_tab(browser, server)
    page = tab.page

    def tab_to(selector, limit=120):
        for _ in range(limit):
            page.keyboard.press("Tab")
            if page.evaluate(f"document.activeElement && document.activeElement.matches({json.dumps(selector)})"):
                return
        raise AssertionError(f"Tab never reached {selector}")

    tab_to("button.start[data-game='cavalloicera']")
    page.keyboard.press("Enter")
    page.wait_for_selector("body[data-table]")
    for k in range(4):
        wait_turn_or_end(page)
        moves = int(page.evaluate("document.body.dataset.moves"))
        tab_to("#hand .card")
        page.keyboard.press("Enter")  # one move: played; several: the card's moves come next, focus on the first
        if page.evaluate("document.activeElement.matches('#choice-list .choice')"):
            page.keyboard.press("Space")
        page.wait_for_function(f"Number(document.body.dataset.moves) > {moves}")
    tab_to("#settings-button")
    page.keyboard.press("Enter")
    expect(page.locator("#settings-dialog")).to_be_visible()
    tab_to("#contrast")
    page.keyboard.press("Space")
    page.keyboard.press("Escape")
    assert "contrast" in page.evaluate("document.body.className")
    tab.close()


def test_phone_screen_settings_and_hint(server, browser, shots):
    tab = open_tab(browser, server, viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True,
                   has_touch=True)
    page = tab.page
    page.click("button.start[data-game='cavalloicera']")
    page.wait_for_selector("body[data-table]")
    wait_turn_or_end(page)
    assert page.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth + 1"), "sideways scrolling"
    page.click("#hint")
    expect(page.locator("#status")).to_contain_text(":")
    shots(page, "cavalloicera-phone")
    page.click("#settings-button")
    page.check("input[name='size'][value='large']")
    page.check("#contrast")
    page.locator("#settings-dialog .close-dialog").click()
    assert {"size-large", "contrast"} <= set(page.evaluate("document.body.className").split())
    assert page.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth + 1")
    shots(page, "cavalloicera-phone-contrast")
    tab.close()


def test_briscola_move_list_says_who_took_each_trick_and_the_draws(server, browser):
    """The move list: who took each trick and its points, the card you drew, the opponent's as
    "a card" but the face-up trump card, which the last drawer takes in view of both."""
    tab = open_tab(browser, server)
    page = tab.page
    page.click("button.start[data-game='briscola'][data-deck='milanesi']")
    page.wait_for_selector("body[data-table]")
    play_by_clicking(tab)
    log = page.locator("#log li").all_inner_texts()
    tricks = [line for line in log if "took the trick: +" in line]
    assert len(tricks) == 20, log
    assert sum("You drew " in line for line in tricks) == 17
    assert sum("Opponent drew a card" in line for line in tricks) >= 16
    assert sum("drew the trump card, " in line for line in tricks) == 1
    assert "drew the trump card, " in tricks[16]
    tab.close()


def test_words_a_player_reads(server, browser):
    """The shipped AI by name in the menu, a number's word in the right form in every
    language, and the pile box without a label doubled."""
    tab = open_tab(browser, server)
    page = tab.page
    options = page.locator("#ai option").all_inner_texts()
    assert "the shipped AI" in options and not any("policy:" in o for o in options)
    forms = {"en": ["1 card", "3 cards", "5 cards", "21 cards"],
             "nl": ["1 kaart", "3 kaarten", "5 kaarten", "21 kaarten"],
             "fi": ["1 kortti", "3 korttia", "5 korttia", "21 korttia"],
             "ru": ["1 карта", "3 карты", "5 карт", "21 карта"]}
    for lang, want in forms.items():
        page.select_option("#lang", lang)
        page.wait_for_function(f"document.documentElement.lang === '{lang}'")
        assert [page.evaluate(f"t('pile_n', {{n: {n}}})") for n in (1, 3, 5, 21)] == want
    page.select_option("#lang", "ru")
    page.click("button.start[data-game='scopa'][data-deck='milanesi']")
    page.wait_for_selector("body[data-table]")
    for line in page.locator("#piles div[data-team]").all_inner_texts():  # "Вы: 0 карт", "Соперник: 3 карты"
        m = re.fullmatch(r"[^:]+: (\d+) (карта|карты|карт)", line)
        assert m, line
        n = int(m[1])
        assert m[2] == ("карта" if n % 10 == 1 and n % 100 != 11 else
                        "карты" if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14 else "карт"), line
    tab.close()
