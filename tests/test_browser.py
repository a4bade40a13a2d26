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
    """``save(page, name)``: a screenshot of the window to the test's folder, and to
    ``$CAVALLO_SCREENSHOTS`` when set (``CAVALLO_SCREENSHOTS=docs/img`` makes the README's and
    docs/table.md's), once the cards have stopped moving."""
    dirs = [tmp_path_factory.mktemp("screenshots")]
    if os.environ.get("CAVALLO_SCREENSHOTS"):
        dirs.append(Path(os.environ["CAVALLO_SCREENSHOTS"]))
        dirs[-1].mkdir(parents=True, exist_ok=True)

    def save(page, name):
        page.wait_for_function("document.getAnimations().length === 0")
        page.evaluate("""() => { const b = document.getElementById('banner');  // the table page's, not the others'
          if (b) b.hidden = true;
          if (document.activeElement) document.activeElement.blur(); }""")
        for d in dirs:  # JPEG: the felt's grain makes a PNG ten times larger
            page.screenshot(path=str(d / f"{name}.jpg"), type="jpeg", quality=80)
        assert (dirs[0] / f"{name}.jpg").stat().st_size > 5000
    return save


# the cards the page shows face up (every data-card but the copies flying to a pile) and what the
# board says (its text, labels and titles): the move list and the status line tell past moves,
# whose cards may be dealt again, hidden, in a later deal
DOM_CARDS = """() => {
  const board = document.getElementById('board');
  const out = new Set([board.innerText]);
  for (const e of document.querySelectorAll('[data-card]:not(.ghost)')) out.add(e.dataset.card);
  for (const e of board.querySelectorAll('[aria-label], [title]')) {
    out.add(e.getAttribute('aria-label') || ''); out.add(e.getAttribute('title') || '');
  }
  return [Number(document.body.dataset.moves), [...out]];
}"""
# what the banner on the felt said (a trick's winner, a scopa), kept for the test
BANNERS = """() => { window.__banners = [];
  new MutationObserver(() => { const b = document.getElementById('banner');
    if (!b.hidden) window.__banners.push(b.className + ': ' + b.textContent); })
  .observe(document.getElementById('banner'), {attributes: true, childList: true, characterData: true, subtree: true}); }"""


class Page:
    """A browser tab on the table page that records every JSON answer of the table API, the
    Authorization header of every table request, what the page showed at each of seat 0's turns,
    and fails on any JavaScript dialog (alert, confirm, prompt): the page has none."""

    def __init__(self, browser, url, lang="en", query="pace=30", ctx=None, **context):
        self.own = ctx is None
        self.ctx = browser.new_context(**context) if ctx is None else ctx
        if self.own:
            self.ctx.add_init_script(f"localStorage.setItem('cavallo.lang', '{lang}')")
        self.page = self.ctx.new_page()
        self.answers, self.errors, self.auth, self.shown = [], [], [], []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("dialog", self._dialog)
        self.page.on("response", self._seen)
        self.page.on("request", self._request)
        self.url = f"{url}/?{query}"
        self.page.goto(self.url)
        self.page.wait_for_selector("body[data-ready='1']")
        self.page.evaluate(BANNERS)

    def _dialog(self, dialog):
        self.errors.append(f"a JavaScript {dialog.type} dialog: {dialog.message}")
        dialog.dismiss()

    def _request(self, request):
        m = re.search(r"/v1/tables/([^/?]+)", request.url)
        if m:
            self.auth.append((m[1], request.headers.get("authorization")))

    def _seen(self, response):
        if "/v1/tables" in response.url and response.request.method in ("GET", "POST") and response.ok:
            try:
                self.answers.append(response.json())
            except Exception:  # the page left while the body was on its way
                pass

    def look(self):
        self.shown.append(self.page.evaluate(DOM_CARDS))

    def banners(self):
        return self.page.evaluate("window.__banners")

    def start(self, game, deck):
        moves = self.page.evaluate("document.body.dataset.table || ''")
        self.page.click(f"button.start[data-game='{game}'][data-deck='{deck}']")
        self.page.wait_for_function(f"document.body.dataset.table && document.body.dataset.table !== '{moves}'")

    def close(self):
        if self.own:
            self.ctx.close()
        else:
            self.page.close()
        assert not self.errors, self.errors


def hidden_by_move(url, answers):
    """For each move count of the game the page played: the cards seat 0 must not see then.

    The table's game is rebuilt from its seed and the moves of its record.
    """
    first = answers[0]
    game = games.get(first["game"])
    token = first.get("token")  # a server that guards its tables answers the token at creation
    record = httpx.get(f"{url}/v1/tables/{first['id']}/record",
                       headers={"authorization": f"Bearer {token}"} if token else {}).json()
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


def english_name(card):
    words = json.loads((Path(games.__file__).parents[1] / "web" / "i18n" / "en.json").read_text())
    rank, suit = card.rsplit("-", 1)
    return words["card"].replace("{rank}", words["rank"][rank]).replace("{suit}", words["suit"][suit])


def check_nothing_hidden(url, tab):
    """Every JSON answer and every page seen at seat 0's turns checked against the cards hidden then."""
    tables = [a for a in tab.answers if isinstance(a, dict) and "view" in a]
    assert tables, "the page received no table"
    hidden = hidden_by_move(url, tables)
    for a in tables:
        shown = dict(a)
        if a["last"] and a["last"]["deal_ended"]:
            shown.pop("last")  # the previous deal's last move
        leaked = hidden[a["moves"]] & strings_in(shown)
        assert not leaked, f"move {a['moves']}: the page received hidden cards {leaked}"
    assert tab.shown, "the page was never looked at"
    for moves, strings in tab.shown:
        blob = "\n".join(strings)
        leaked = {c for c in hidden[moves] if c in strings or english_name(c) in blob}
        assert not leaked, f"move {moves}: the page showed hidden cards {leaked}"
    return len(tables)


def wait_turn_or_end(page, timeout=60_000):
    """Until it is seat 0's turn (the page idle) or the end-of-deal screen is up."""
    page.wait_for_function(
        "document.getElementById('end-dialog').open || document.body.dataset.ready === '1' && "
        "document.body.dataset.yourTurn === '1' && document.body.dataset.pending !== '1'", timeout=timeout)


def play_one(tab, pick=-1):
    """Seat 0's turn: click a hand card; a card with one legal move is played by that click; with
    several (the table cards to take) they are offered: click the table cards of the ``pick``-th
    move that takes cards, then Play."""
    page = tab.page
    tab.look()
    hand = page.locator("#hand .card")
    moves = int(page.evaluate("document.body.dataset.moves"))
    card = hand.nth(moves % hand.count()).get_attribute("data-card")
    legal = page.evaluate(f"app.snap.legal.filter((m) => m.play === '{card}').length")
    page.click(f"#hand .card[data-card='{card}']")
    if legal > 1:
        expect(page.locator("#choices")).to_be_visible()
        assert "error" not in page.get_attribute("#status", "class")
        choices = page.locator("#choice-list .choice")
        captures = [choices.nth(i).get_attribute("data-capture") for i in range(choices.count())]
        assert len(captures) == legal
        wanted = [c for c in captures if c][pick]
        for c in wanted.split(","):
            page.locator(f"#felt .card[data-card='{c}']").click()
        expect(page.locator(f"#choice-list .choice[data-capture='{wanted}']")).to_have_attribute("aria-pressed", "true")
        page.click("#play-selected")
    else:
        assert page.locator("#choices").is_hidden(), "the table cards offered for a card with one move"
    page.wait_for_function(f"Number(document.body.dataset.moves) > {moves}")


def play_by_clicking(tab, max_moves=200):
    """Play seat 0's moves by clicking until a deal ends; returns the number of moves clicked."""
    page = tab.page
    for clicked in range(max_moves):
        wait_turn_or_end(page)
        if page.evaluate("document.getElementById('end-dialog').open"):
            return clicked
        play_one(tab)
    raise AssertionError("no end of the deal")


def open_tab(browser, url, **kw):
    return Page(browser, url, **kw)


# the seeds of the screenshots (a server started with --table-seeds), and their window
SEEDS = {"cavalloicera": 7, "briscola": 7, "scopa": 11}
DESKTOP = {"width": 1280, "height": 900}


def check_briscola_log(page):
    """The move list: who took each trick and its points, the card you drew, the opponent's as
    "a card" but the face-up trump card, which the last drawer takes in view of both."""
    log = page.locator("#log li").all_inner_texts()
    tricks = [line for line in log if "took the trick: +" in line]
    assert len(tricks) == 20, log
    assert sum("You drew " in line for line in tricks) == 17
    assert sum("Opponent drew a card" in line for line in tricks) >= 16
    assert sum("drew the trump card, " in line for line in tricks) == 1
    assert "drew the trump card, " in tricks[16]


@pytest.mark.parametrize("game,deck", [("cavalloicera", "bresciane"), ("briscola", "milanesi")])
def test_a_whole_game_by_clicking(server, browser, shots, game, deck):
    tab = open_tab(browser, server, query=f"pace=10&seed={SEEDS[game]}", viewport=DESKTOP, reduced_motion="reduce")
    page = tab.page
    tab.start(game, deck)
    wait_turn_or_end(page)
    shots(page, f"{game}-{deck}-desktop")
    # a table card clicked before a hand card is refused, in red, saying why
    if game != "briscola" and page.locator("#felt .card").count():
        page.locator("#felt .card").first.click()
        expect(page.locator("#status.error")).not_to_be_empty()
    n = play_by_clicking(tab)
    assert n >= 5
    expect(page.locator("#end-dialog")).to_be_visible()
    # the end shows the table as the game ended: the hands played out, the last trick on the felt
    assert page.locator("#hand .card, #seats .card").count() == 0
    if game == "briscola":
        assert page.locator("#felt .card").count() == 2
        check_briscola_log(page)
        assert any("trick" in b and "took the trick" in b for b in tab.banners())
    assert page.locator("#end-table tbody tr").count() >= len(games.get(game).breakdown_keys) + 1
    shots(page, f"{game}-{deck}-end")
    expect(page.locator("#end-again")).to_be_visible()
    assert page.locator("#end-verdict").inner_text()
    first = tab.answers[0]["id"]
    assert check_nothing_hidden(server, tab) > n
    page.click("#end-again")  # play again: a new table of the same game
    page.wait_for_function(f"document.body.dataset.table !== '{first}'")
    tab.close()


def test_scopa_match_deal_by_deal(server, browser, shots):
    """A Scopa match played to its end by clicking: each deal ends on its final table, the dialog
    over it, the next deal dealt only after Continue; a scopa is announced; nothing hidden shown."""
    tab = open_tab(browser, server, query=f"pace=10&seed={SEEDS['scopa']}", viewport=DESKTOP, reduced_motion="reduce")
    page = tab.page
    tab.start("scopa", "milanesi")
    wait_turn_or_end(page)
    shots(page, "scopa-milanesi-desktop")
    for deal in range(1, 30):
        play_by_clicking(tab)
        expect(page.locator("#end-dialog")).to_be_visible()
        assert page.locator("#hand .card, #seats .card").count() == 0, "the next deal shown under the dialog"
        if page.locator("#end-again").is_visible():
            break
        assert "11" in page.locator("#end-match").inner_text()
        if deal == 1:
            shots(page, "scopa-milanesi-end")
        page.click("#end-continue")
        expect(page.locator("#end-dialog")).to_be_hidden()
        page.wait_for_function("document.querySelectorAll('#hand .card').length + "
                               "document.querySelectorAll('#seats .card').length > 0")
    else:
        raise AssertionError("the match did not end")
    assert check_nothing_hidden(server, tab) > 36
    scope = [a["last"] for a in tab.answers if a.get("last") and "scope" in a["last"]["bonuses"]]
    assert scope, "no scopa in this seed's match: choose another seed"
    assert any(b.startswith("banner scopa: Scopa!") for b in tab.banners())
    tab.close()


def test_one_click_and_choices(server, browser):
    """A card with one legal move is played by one click; a card with several offers them, and
    only then is the player asked to choose table cards (in the page's colour, not red)."""
    tab = open_tab(browser, server, query="pace=30&seed=5")
    page = tab.page
    tab.start("cavalloicera", "bresciane")
    wait_turn_or_end(page)
    counts = page.evaluate("Object.entries(app.snap.legal.reduce((a, m) => (a[m.play] = (a[m.play] || 0) + 1, a), {}))")
    single = [c for c, k in counts if k == 1]
    several = [c for c, k in counts if k > 1]
    assert single and several, counts
    page.click(f"#hand .card[data-card='{several[0]}']")
    expect(page.locator("#choices")).to_be_visible()
    expect(page.locator("#status")).to_have_class("status news")
    page.click("#cancel-selected")
    expect(page.locator("#choices")).to_be_hidden()
    moves = int(page.evaluate("document.body.dataset.moves"))
    page.evaluate("window.__offered = false; new MutationObserver(() => { if (!document.getElementById('choices')"
                  ".hidden) window.__offered = true; }).observe(document.getElementById('choices'), {attributes: true})")
    page.click(f"#hand .card[data-card='{single[0]}']")
    page.wait_for_function(f"Number(document.body.dataset.moves) > {moves}")
    assert not page.evaluate("window.__offered")
    assert page.evaluate(f"app.log.some((m) => m.seat === 0 && m.play === '{single[0]}')")
    tab.close()


def test_menu_asks_in_the_page_and_motion_can_be_reduced(server, browser):
    """Menu during a game asks in an in-page dialog (a JavaScript dialog fails the test); with
    prefers-reduced-motion nothing moves, without it the played cards slide and fly."""
    still = open_tab(browser, server, reduced_motion="reduce")
    moving = open_tab(browser, server)
    for tab in (still, moving):
        tab.start("briscola", "milanesi")
        for _ in range(3):
            wait_turn_or_end(tab.page)
            play_one(tab)
            assert tab.page.evaluate("document.getAnimations().length") == 0 or tab is moving
    wait_turn_or_end(moving.page)
    assert int(moving.page.evaluate("document.body.dataset.animations || 0")) >= 3
    assert still.page.evaluate("document.body.dataset.animations") is None
    page = still.page
    page.click("#to-menu")
    expect(page.locator("#leave-dialog")).to_be_visible()
    page.click("#leave-no")
    expect(page.locator("#table")).to_be_visible()
    page.click("#to-menu")
    page.click("#leave-yes")
    expect(page.locator("#lobby")).to_be_visible()
    for tab in (still, moving):
        tab.close()


def test_settings_kept_reload_and_second_tab_continue(server, browser):
    """Settings survive a reload; a reload and a second tab of the same browser continue the
    game at the same move, every table request carrying the table's token."""
    tab = open_tab(browser, server)
    page = tab.page
    page.click("#settings-button")
    page.check("input[name='size'][value='small']")
    for name, value in (("felt-contrast", 80), ("felt-grain", 10), ("felt-temp", -30)):
        page.eval_on_selector(f"#{name}", f"(e) => {{ e.value = {value}; e.dispatchEvent(new Event('input')); }}")
    page.fill("#player-name", "Ada")
    page.press("#player-name", "Tab")
    page.locator("#settings-dialog .close-dialog").click()
    tab.start("scopa", "milanesi")
    wait_turn_or_end(page)
    play_one(tab)
    wait_turn_or_end(page)
    table, moves = page.evaluate("[document.body.dataset.table, document.body.dataset.moves]")
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    assert page.evaluate("[document.body.dataset.table, document.body.dataset.moves]") == [table, moves]
    assert page.locator("#log li").count() == int(moves)  # this deal's moves, from the view's history
    assert "size-small" in page.evaluate("document.body.className")
    kept = "['felt_contrast', 'felt_grain', 'felt_temp', 'player_name'].map((k) => app.settings[k])"
    assert page.evaluate(kept) == [80, 10, -30, "Ada"]
    assert page.input_value("#felt-temp") == "-30"
    other = Page(browser, server, ctx=tab.ctx)  # a second tab of the same browser
    assert other.page.evaluate("[document.body.dataset.table, document.body.dataset.moves]") == [table, moves]
    token = next((a.get("token") for a in tab.answers if a.get("id") == table and a.get("token")), None)
    sent = {auth for t, auth in tab.auth + other.auth if t == table}
    assert sent == ({f"Bearer {token}"} if token else {None}), sent
    other.close()
    tab.close()


def test_reconnects_when_the_server_is_away(server, browser, shots):
    """The server unreachable: the page says so (not in red) and tries again by itself, then goes on."""
    tab = open_tab(browser, server, query=f"pace=30&seed={SEEDS['briscola']}", viewport=DESKTOP)
    page = tab.page
    tab.start("briscola", "bresciane")
    wait_turn_or_end(page)
    shots(page, "briscola-bresciane-desktop")
    page.route("**/v1/tables/**", lambda route: route.abort())
    card = page.locator("#hand .card").first.get_attribute("data-card")
    page.click(f"#hand .card[data-card='{card}']")
    reconnecting = httpx.get(f"{server}/static/i18n/en.json").json()["reconnecting"].split(":")[0]
    expect(page.locator("#status")).to_contain_text(reconnecting)
    expect(page.locator("#status")).to_have_class("status news")
    moves = int(page.evaluate("document.body.dataset.moves"))
    page.unroute("**/v1/tables/**")
    expect(page.locator("#status")).not_to_contain_text(reconnecting, timeout=10_000)
    wait_turn_or_end(page)
    play_one(tab)
    assert int(page.evaluate("document.body.dataset.moves")) > moves
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


GAMES = [("cavalloicera", "bresciane"), ("briscola", "bresciane"), ("briscola", "milanesi"), ("scopa", "milanesi")]


def test_phone_screen_settings_and_hint(server, browser, shots):
    tab = open_tab(browser, server, query="pace=30&seed=7", viewport={"width": 390, "height": 844},
                   device_scale_factor=2, is_mobile=True, has_touch=True)
    page = tab.page
    for game, deck in GAMES:
        if page.locator("#table").is_visible():
            page.click("#to-menu")
            page.click("#leave-yes")
        tab.start(game, deck)
        wait_turn_or_end(page)
        assert page.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth + 1"), "sideways scrolling"
        page.evaluate("document.getElementById('table-title').scrollIntoView()")
        shots(page, f"{game}-{deck}-phone")
    page.click("#hint")
    expect(page.locator("#status")).to_contain_text(":")
    page.click("#settings-button")
    page.check("input[name='size'][value='large']")
    page.check("#contrast")
    page.locator("#settings-dialog .close-dialog").click()
    assert {"size-large", "contrast"} <= set(page.evaluate("document.body.className").split())
    assert page.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth + 1")
    page.evaluate("document.getElementById('table-title').scrollIntoView()")
    shots(page, "scopa-milanesi-phone-contrast")
    tab.close()


def test_words_a_player_reads(server, browser):
    """The shipped AIs by their levels in the menu ("Strong" first where the copy ships it, "Fast"), each
    with its line saying what it is, a number's word in the right form in every language, and the pile box
    without a label doubled."""
    from cavallo_env import levels

    tab = open_tab(browser, server)
    page = tab.page
    names = {"strong": "Strong", "fast": "Fast"}
    shipped = [names[level] for level in levels.LEVELS if any(levels.available(level, g) for g in games.names())]
    options = page.locator("#ai option").all_inner_texts()
    assert options == shipped + ["a rule-based AI", "an easy AI"]
    assert page.locator("#ai-about").inner_text().startswith(shipped[0] + ": ")
    page.select_option("#ai", label="an easy AI")
    assert page.locator("#ai-about").inner_text() == "Easy: takes the most it can right now."
    page.select_option("#ai", label="Fast")
    assert page.locator("#ai-about").inner_text() == "Fast: the trained network alone, answering at once."
    page.select_option("#lang", "fi")
    page.wait_for_function("document.documentElement.lang === 'fi'")
    assert page.locator("#ai option:checked").inner_text() == "Nopea"
    assert page.locator("#ai-about").inner_text().startswith("Nopea: ")
    page.select_option("#lang", "en")
    page.wait_for_function("document.documentElement.lang === 'en'")
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
