// The table page: plain JavaScript, no build step. The server owns the game
// (cavallo_env/tables.py); this page shows seat 0's snapshot, sends your moves
// and asks the AI for its moves one at a time, at a pace a person can follow.
// board.js draws the table, cards.js the cards.
"use strict";

const PACE_MS = { slow: 1600, normal: 900, fast: 350 };
const PARAMS = new URLSearchParams(location.search);
// ?pace=<ms> sets the AI's pace for a demo or a test (0..5000 ms)
const PACE_PARAM = PARAMS.get("pace");
const pace = () => (PACE_PARAM !== null && Number(PACE_PARAM) >= 0 && Number(PACE_PARAM) <= 5000
  ? Number(PACE_PARAM) : PACE_MS[app.settings.pace]);
// ?seed=<n> asks for a table dealt from that seed (a server started with --table-seeds: tests, screenshots)
const SEED_PARAM = /^\d{1,30}$/.test(PARAMS.get("seed") || "") ? Number(PARAMS.get("seed")) : undefined;
const $ = (id) => document.getElementById(id);
// a game whose move is one card played to a trick (Briscola), not a card that takes table cards:
// its moves have no "capture" field (the snapshot's move_fields, Game.move_fields)
const tricks = (snap) => !snap.move_fields.includes("capture");

const app = {
  T: {}, rules: {}, lang: "en", languages: ["en"], catalog: null, ais: [], levels: {},
  snap: null, selected: null, picked: new Set(), hint: null, timer: null, shownDeals: 0,
  log: [], lastN: 0, busy: false, final: null, retry: 0, playerFields: true,
  settings: {
    size: "medium", pace: "normal", contrast: false, felt_contrast: 50, felt_grain: 40, felt_temp: 0, player_name: "",
  },
};

// ---------------------------------------------------------------- the browser's storage
// settings, language, this browser's anonymous player id, the table in play and each table's token
const KEYS = { settings: "cavallo.settings", lang: "cavallo.lang", player: "cavallo.player",
  table: "cavallo.table", tokens: "cavallo.tokens" };
const MAX_TOKENS = 16;
function stored(key, fallback) {
  try { const v = JSON.parse(localStorage.getItem(key)); return v === null ? fallback : v; } catch (e) { return fallback; }
}
function store(key, value) {
  try { localStorage.setItem(key, JSON.stringify(value)); } catch (e) { /* private mode: kept for this page only */ }
}
function tokenOf(id) { return (stored(KEYS.tokens, {}) || {})[id]; }
function keepToken(id, token) {
  const tokens = Object.entries(stored(KEYS.tokens, {}) || {}).filter(([k]) => k !== id);
  tokens.push([id, token]);
  store(KEYS.tokens, Object.fromEntries(tokens.slice(-MAX_TOKENS)));
}
function forgetTable(id) {
  const tokens = stored(KEYS.tokens, {}) || {};
  delete tokens[id];
  store(KEYS.tokens, tokens);
  if (stored(KEYS.table, null) === id) localStorage.removeItem(KEYS.table);
}
function playerId() {
  let id = localStorage.getItem(KEYS.player);
  if (!/^[A-Za-z0-9_-]{8,64}$/.test(id || "")) {
    const bytes = crypto.getRandomValues(new Uint8Array(22));
    id = Array.from(bytes, (b) => "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"[b & 63]).join("");
    localStorage.setItem(KEYS.player, id);
  }
  return id;
}

// ---------------------------------------------------------------- text
// A word that depends on a number is written {n|form|form...}: one form per plural
// category of the language (Intl.PluralRules), in the order one, few, many, other
// (English: {n|card|cards}; Russian: {n|карта|карты|карт|карты}).
const PLURAL_ORDER = ["zero", "one", "two", "few", "many", "other"];
function plural(n, forms) {
  const rules = new Intl.PluralRules(app.lang);
  const cats = rules.resolvedOptions().pluralCategories.slice()
    .sort((a, b) => PLURAL_ORDER.indexOf(a) - PLURAL_ORDER.indexOf(b));
  const i = cats.indexOf(rules.select(Number(n)));
  return forms[i >= 0 && i < forms.length ? i : forms.length - 1];
}
function t(key, vars) {
  let s = key.split(".").reduce((o, k) => (o && o[k] !== undefined ? o[k] : undefined), app.T);
  if (s === undefined) s = key;
  if (vars) {
    s = s.replace(/\{(\w+)\|([^{}]*)\}/g, (all, k, forms) => (k in vars ? plural(vars[k], forms.split("|")) : all));
    for (const [k, v] of Object.entries(vars)) s = s.split(`{${k}}`).join(String(v));
  }
  return s;
}
// an AI by the words a player reads: a shipped level ("Strong", "Fast"), a plain bot's name, else its spec
function aiName(spec) {
  const level = app.levels[spec];
  if (level) return t("levels." + level);
  return (app.T.ai_names && app.T.ai_names[spec]) || spec;
}
function aiAbout(spec) { return (app.T.ai_about && app.T.ai_about[app.levels[spec] || spec]) || ""; }
function showAiAbout() { $("ai-about").textContent = aiAbout($("ai").value); }
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "text") e.textContent = v;
    else if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}
// the status line: news (the AI's move, a hint, a choice to make) in the page's colour, errors in red
function say(text, kind = "news") {
  const s = $("status");
  s.textContent = text || "";
  s.className = "status " + (text ? kind : "");
}
const oops = (text) => say(text, "error");

function parseCard(name) {
  const i = name.lastIndexOf("-");
  return { rank: name.slice(0, i), suit: name.slice(i + 1) };
}
function cardName(name) {
  const c = parseCard(name);
  return t("card", { rank: t("rank." + c.rank), suit: t("suit." + c.suit) });
}
function cardList(names) { return names.map(cardName).join(" + "); }

function bonusText(bonuses) {
  return bonuses && bonuses.length ? " " + t("bonus_list", { bonuses: bonuses.map((b) => t("bonus." + b)).join(", ") }) : "";
}
function moveText(m) {
  let s;
  if (app.snap && tricks(app.snap)) s = t("play_card", { card: cardName(m.play) });
  else if (!m.capture || !m.capture.length) s = t("place", { card: cardName(m.play) });
  else s = t("takes", { card: cardName(m.play), cards: cardList(m.capture) });
  return s + bonusText(m.bonuses) + trickText(m.trick);
}
// Briscola: who took the trick, its points and the cards drawn that you may know
function trickText(k) {
  if (!k) return "";
  const parts = [t("trick_taken", { who: seatName(k.winner), n: k.points })];
  if (k.drew) {
    for (const s of [k.winner, 1 - k.winner]) {
      const who = seatName(s), card = k.drew[s];
      parts.push(card === null ? t("drew_card", { who })
        : t(s === k.trump_to ? "drew_trump" : "drew", { who, card: cardName(card) }));
    }
  }
  return ". " + parts.join("; ");
}
function seatName(seat) {
  const s = app.snap.seats[seat];
  if (s.who === "you") return t("you");
  if (app.snap.seats.length === 2) return t("opponent");
  return s.who === "partner" ? t("partner_n", { seat }) : t("opponent_n", { seat });
}
function teamNames() {
  return app.snap.seats.length === 4 ? [t("us"), t("them")] : [t("you"), t("opponent")];
}

// ---------------------------------------------------------------- server
class ApiError extends Error {
  constructor(message, status, code, detail) {
    super(message);
    this.status = status; this.code = code; this.detail = detail;
    this.offline = status === 0 || status === 502 || status === 504;  // the server is down or unreachable
  }
}
// every call about a table carries its token (kept since the table was created)
function tableHeaders(path) {
  const m = /^\/v1\/tables\/([^/?]+)/.exec(path);
  const token = m && tokenOf(m[1]);
  return token ? { authorization: `Bearer ${token}` } : {};
}
const API_TIMEOUT_MS = 30000;  // past the server's own limits (an AI move: --move-timeout, 10 s by default)
async function api(method, path, body) {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), API_TIMEOUT_MS);  // a server that went silent counts as away
  const opts = { method, headers: tableHeaders(path), signal: ctl.signal };
  if (body !== undefined) { opts.body = JSON.stringify(body); opts.headers["content-type"] = "application/json"; }
  let r, data = null;
  try {
    r = await fetch(path, opts);
    try { data = await r.json(); } catch (e) { if (ctl.signal.aborted) throw e; data = null; }  // 204: no body
  } catch (e) {
    throw new ApiError(t("offline"), 0, "offline", e.message);
  } finally { clearTimeout(timer); }
  if (!r.ok) {
    const code = data && data.code;
    const said = code && app.T.errors && app.T.errors[code];
    const detail = (data && data.detail) || String(r.status);
    const text = r.status === 404 ? t("expired") : said ? t("errors." + code)
      : r.status === 502 || r.status === 504 ? t("offline") : t("error", { detail });
    throw new ApiError(text, r.status, code, detail);
  }
  return data;
}
// an answer about a table the page has left (Menu, a new game) is dropped
const current = (id) => app.snap && app.snap.id === id && !$("table").hidden;

async function loadLanguage(lang) {
  const [T, rules] = await Promise.all([
    api("GET", `/static/i18n/${lang}.json`), api("GET", `/static/rules/${lang}.json`),
  ]);
  app.T = T; app.rules = rules; app.lang = lang;
  document.documentElement.lang = lang;
  document.title = t("page_title");
  for (const e of document.querySelectorAll("[data-i18n]")) e.textContent = t(e.dataset.i18n);
  localStorage.setItem(KEYS.lang, lang);
}

// ---------------------------------------------------------------- settings
// the felt: its colour from the temperature (hue) and the contrast (how dark), its grain
function applySettings() {
  const s = app.settings, body = document.body;
  body.classList.remove("size-small", "size-medium", "size-large");
  body.classList.add("size-" + s.size);
  body.classList.toggle("contrast", !!s.contrast);
  body.style.setProperty("--felt-h", String(150 - Number(s.felt_temp) * 0.8));
  body.style.setProperty("--felt-s", `${42 + Math.abs(Number(s.felt_temp)) * 0.1}%`);
  body.style.setProperty("--felt-l", `${34 - Number(s.felt_contrast) * 0.2}%`);
  body.style.setProperty("--grain", String(Number(s.felt_grain) / 100));
  for (const r of document.querySelectorAll('input[name="size"]')) r.checked = r.value === s.size;
  for (const r of document.querySelectorAll('input[name="pace"]')) r.checked = r.value === s.pace;
  $("contrast").checked = !!s.contrast;
  $("felt-contrast").value = s.felt_contrast;
  $("felt-grain").value = s.felt_grain;
  $("felt-temp").value = s.felt_temp;
  if (document.activeElement !== $("player-name")) $("player-name").value = s.player_name;
  store(KEYS.settings, s);
}
function loadSettings() {
  const saved = stored(KEYS.settings, null);
  if (saved && typeof saved === "object") {
    for (const k of Object.keys(app.settings)) if (typeof saved[k] === typeof app.settings[k]) app.settings[k] = saved[k];
  }
  applySettings();
}
function bindSettings() {
  for (const r of document.querySelectorAll('input[name="size"], input[name="pace"]')) {
    r.addEventListener("change", () => { app.settings[r.name] = r.value; applySettings(); });
  }
  for (const r of document.querySelectorAll('#settings-dialog input[type="range"]')) {
    r.addEventListener("input", () => { app.settings[r.name] = Number(r.value); applySettings(); });
  }
  $("contrast").addEventListener("change", (e) => { app.settings.contrast = e.target.checked; applySettings(); });
  $("player-name").addEventListener("change", (e) => {
    app.settings.player_name = e.target.value.trim().slice(0, 40);
    applySettings();
  });
}

// ---------------------------------------------------------------- lobby
function rulesNodes(game, headingTag) {
  const r = app.rules[game];
  const out = [el("p", { text: r.summary })];
  for (const sec of r.sections) {
    out.push(el(headingTag, { text: sec.heading }));
    for (const p of sec.paragraphs) out.push(el("p", { text: p }));
    if (sec.items.length) out.push(el("ul", {}, ...sec.items.map((i) => el("li", { text: i }))));
  }
  return out;
}
function showRules(game) {
  $("rules-title").textContent = app.rules[game].title;
  $("rules-text").replaceChildren(...rulesNodes(game, "h3"));
  $("rules-dialog").showModal();
}

function gameEntry(d, g) {
  const players = g.seats === 4 ? t("players_teams") : g.match ? t("players_match") : t("players_two");
  const rulesBox = el("div", { class: "rules-inline", id: `rules-${d.deck}-${g.game}`, hidden: true });
  const toggle = el("button", {
    type: "button", "aria-expanded": "false", "aria-controls": rulesBox.id, text: t("rules"),
    onclick: () => {
      const open = rulesBox.hidden;
      rulesBox.hidden = !open;
      toggle.setAttribute("aria-expanded", String(open));
      toggle.textContent = open ? t("hide_rules") : t("rules");
      if (open) rulesBox.replaceChildren(...rulesNodes(g.game, "h5"));
    },
  });
  return el("div", { class: "game" },
    el("h4", { text: g.title }),
    el("p", { text: t("game_summary." + g.game) }),
    el("p", { text: players }),
    el("div", { class: "actions" },
      el("button", {
        type: "button", class: "primary start", "data-game": g.game, "data-deck": d.deck,
        "aria-label": `${t("start_game")}: ${g.title}, ${t("deck_" + d.deck)}`, text: t("start_game"),
        onclick: () => startGame(g.game, d.deck),
      }), toggle),
    rulesBox);
}

function renderLobby() {
  const ai = $("ai");
  const chosen = ai.value;
  ai.replaceChildren(...app.ais.map((spec) => el("option", { value: spec, text: aiName(spec) })));
  if (chosen) ai.value = chosen;
  showAiAbout();
  $("decks").replaceChildren(...app.catalog.map((d) => el("section", { class: "deck", "aria-label": t("deck_" + d.deck) },
    el("h3", { text: t("deck_" + d.deck) }), el("p", { class: "note", text: t("deck_" + d.deck + "_note") }),
    ...d.games.map((g) => gameEntry(d, g)))));
}

function leaveTable() {
  if (!app.snap) return;
  const id = app.snap.id;
  api("DELETE", `/v1/tables/${id}`).catch(() => {}).finally(() => forgetTable(id));
}

function showLobby() {
  clearTimeout(app.timer);
  app.snap = null; app.final = null;
  document.body.removeAttribute("data-table");
  $("table").hidden = true;
  $("lobby").hidden = false;
  say("");
  renderLobby();
}

// ---------------------------------------------------------------- a game
function newTableBody(game, deck) {
  // the AI chosen where it plays this game, else the server's default for the game (its strongest)
  const g = app.catalog.flatMap((d) => d.games).find((x) => x.game === game);
  const ai = $("ai").value;
  const body = { game, deck, ai: ai && (!g || !g.ais || g.ais.includes(ai)) ? ai : undefined, seed: SEED_PARAM };
  if (app.playerFields) {
    body.player_id = playerId();
    if (app.settings.player_name) body.player_name = app.settings.player_name;
  }
  return body;
}
async function createTable(game, deck) {
  try {
    return await api("POST", "/v1/tables", newTableBody(game, deck));
  } catch (e) {  // a server that does not take the player fields yet: ask again without them
    if (!(app.playerFields && e.status === 422 && /player_(id|name)/.test(e.detail || ""))) throw e;
    app.playerFields = false;
    return api("POST", "/v1/tables", newTableBody(game, deck));
  }
}

async function startGame(game, deck) {
  if (app.starting) return;  // one table per click
  app.starting = true;
  say(t("loading"));
  try {
    const snap = await createTable(game, deck);
    if (snap.token) keepToken(snap.id, snap.token);
    enterTable(snap, 0);
    $("main").focus();
  } catch (e) { oops(e.message); } finally { app.starting = false; }
}

// show a table: a new one, or one this browser was playing (a reload, a second tab)
function enterTable(snap, shownDeals, resumed = false) {
  clearTimeout(app.timer);
  app.shownDeals = shownDeals; app.final = null; app.retry = 0;
  app.log = resumed ? snap.view.history.slice() : [];  // a game taken up again: this deal's moves so far
  app.lastN = resumed ? snap.moves : 0;
  app.selected = null; app.picked.clear(); app.hint = null; app.snap = null;
  store(KEYS.table, snap.id);
  $("lobby").hidden = true;
  $("table").hidden = false;
  say("");
  show(snap);
}

async function resume() {
  const id = stored(KEYS.table, null);
  if (typeof id !== "string" || !/^[A-Za-z0-9_-]{1,100}$/.test(id)) return;
  try {
    const snap = await api("GET", `/v1/tables/${id}`);
    enterTable(snap, snap.done ? Math.max(snap.deals.length - 1, 0) : snap.deals.length, true);
  } catch (e) {
    if (e.offline) { say(t("reconnecting", { s: 2 })); setTimeout(resume, 2000); } else forgetTable(id);
  }
}

function show(snap) {
  const prev = app.snap;
  app.snap = snap;
  const b = document.body.dataset;
  b.table = snap.id; b.moves = snap.moves; b.game = snap.game; b.deck = snap.deck;
  b.yourTurn = snap.your_turn ? "1" : "0";
  const last = snap.last && snap.last.n > app.lastN ? snap.last : null;
  if (last) {
    app.log.push(last);
    app.lastN = last.n;
    if (last.seat !== 0) say(t("moved", { who: seatName(last.seat), move: moveText(last) }));
    if (last.deal_ended && prev && prev.id === snap.id && prev.moves === snap.moves - 1) app.final = finalView(prev, last);
  }
  b.pending = snap.deals.length > app.shownDeals ? "1" : "0";
  if (!snap.your_turn) { app.selected = null; app.picked.clear(); }
  app.hint = null;
  const before = last && prev ? measure() : null;
  render();
  if (last && before) animateMove(last, prev, before);
  if (last) announce(last);
  schedule();
}

// the table as the deal ended, before the next deal is dealt: the last move played on the previous view
function finalView(prev, last) {
  const v = prev.view;
  const team = (seat) => prev.seats[seat].team;
  const piles = v.piles.map((p) => p.slice());
  if (tricks(prev)) return { trick: v.trick.concat([last.play]), table: [], piles, leader: v.leader };
  const taken = last.capture && last.capture.length;
  if (taken) piles[team(last.seat)].push(last.play, ...last.capture);
  const table = taken ? v.table.filter((c) => !last.capture.includes(c)) : v.table.concat([last.play]);
  return { table, trick: [], piles };
}

function dialogOpen() { return [...document.querySelectorAll("dialog")].some((d) => d.open); }

function schedule() {
  clearTimeout(app.timer);
  const snap = app.snap;
  if (!snap || dialogOpen()) return;  // the AI waits while a dialog is up
  if (snap.deals.length > app.shownDeals) {  // the final table first, then what the deal scored
    app.timer = setTimeout(showDealEnd, 2 * pace() + 100);
    return;
  }
  if (!snap.done && !snap.your_turn) app.timer = setTimeout(aiStep, pace());
}

async function aiStep() {
  if (!app.snap || app.busy) return;
  const id = app.snap.id;
  app.busy = true;
  try {
    const snap = await api("POST", `/v1/tables/${id}/ai`);
    if (current(id)) { app.retry = 0; show(snap); }
  } catch (e) { if (current(id)) failed(e); } finally { app.busy = false; }
}

// the server down or unreachable: try again after 1, 2, 4 .. 16 s, then go on from the move it has
function reconnect(id) {
  const wait = Math.min(1000 * 2 ** app.retry, 16000);
  app.retry += 1;
  say(t("reconnecting", { s: Math.round(wait / 1000) }));
  clearTimeout(app.timer);
  app.timer = setTimeout(async () => {
    if (!current(id)) return;
    try {
      const snap = await api("GET", `/v1/tables/${id}`);
      if (!current(id)) return;
      app.retry = 0;
      say(t("reconnected"));
      show(snap);
    } catch (e) { if (current(id)) (e.offline ? reconnect(id) : failed(e)); }
  }, wait);
}

function failed(e) {
  const id = app.snap && app.snap.id;
  if (e.offline) { reconnect(id); return; }
  oops(e.message);
  if (e.status === 404) { forgetTable(id); setTimeout(() => { if (current(id)) showLobby(); }, 1500); }
  else if (e.status === 409) api("GET", `/v1/tables/${id}`).then((s) => current(id) && show(s)).catch(() => {});
  else if (!app.snap.your_turn) {  // the AI failed: try again shortly
    clearTimeout(app.timer);
    app.timer = setTimeout(aiStep, 2000);
  }
}

async function send(move) {
  if (app.busy) return;
  const id = app.snap.id;
  app.busy = true;
  try {
    const body = { play: move.play, expect: app.snap.moves };
    if (!tricks(app.snap)) body.capture = move.capture || [];
    const snap = await api("POST", `/v1/tables/${id}/move`, body);
    if (!current(id)) return;
    app.selected = null; app.picked.clear();
    say("");
    show(snap);
    $("turn").focus();
  } catch (e) { if (current(id)) failed(e); } finally { app.busy = false; }
}

// ---------------------------------------------------------------- choosing a move
function movesOf(card) { return app.snap.legal.filter((m) => m.play === card); }
function sameSet(a, b) { return a.length === b.length && a.every((x) => b.includes(x)); }

// one legal move: the click plays it; several (which table cards to take): they are offered
function clickHand(card) {
  const snap = app.snap;
  if (!snap || app.final) return;
  if (!snap.your_turn) { oops(t("not_your_turn")); return; }
  const moves = movesOf(card);
  if (!moves.length) { oops(t("card_has_no_move", { card: cardName(card) })); return; }
  if (moves.length === 1) { send(moves[0]); return; }
  const hinted = app.hint && app.hint.play === card ? app.hint.capture || [] : [];
  app.selected = app.selected === card ? null : card;
  app.picked = new Set(app.selected ? hinted : []);
  say(app.selected ? t("pick_capture", { card: cardName(card) }) : "");
  render();
  const first = document.querySelector("#choice-list .choice");
  if (first) first.focus();  // the moves of that card, next in reach of the keyboard
}

function clickTable(card) {
  const snap = app.snap;
  if (!snap.your_turn) { oops(t("not_your_turn")); return; }
  if (!app.selected) { oops(t("pick_card")); return; }
  const moves = movesOf(app.selected);
  if (!moves.some((m) => m.capture.includes(card))) {
    oops(t("not_in_any_set", { card: cardName(card), played: cardName(app.selected) }));
    return;
  }
  if (app.picked.has(card)) app.picked.delete(card); else app.picked.add(card);
  say(t("selected_count", { n: app.picked.size }));
  render();
}

function playSelected() {
  if (!app.selected) { oops(t("pick_card")); return; }
  const moves = movesOf(app.selected);
  const picked = [...app.picked];
  const match = moves.find((m) => sameSet(m.capture, picked));
  if (match) { send(match); return; }
  if (!picked.length) { oops(t("must_capture", { card: cardName(app.selected) })); return; }
  oops(t("selection_not_legal", {
    cards: cardList(picked), played: cardName(app.selected),
    legal: moves.map((m) => (m.capture.length ? cardList(m.capture) : t("place", { card: cardName(m.play) }))).join("; "),
  }));
}

async function hint() {
  if (!app.snap || !app.snap.your_turn) { oops(t("not_your_turn")); return; }
  const id = app.snap.id;
  try {
    const h = await api("GET", `/v1/tables/${id}/hint`);
    if (!current(id) || h.moves !== app.snap.moves) return;  // asked about a position that is gone
    const m = app.snap.legal.find((x) => x.play === h.move.play && sameSet(x.capture || [], h.move.capture || [])) || h.move;
    say(t("hint_says", { move: moveText(m) }));
    app.hint = m;
    if (!tricks(app.snap) && movesOf(m.play).length > 1) {
      app.selected = m.play; app.picked = new Set(m.capture || []);
    }
    render();
  } catch (e) { if (current(id)) oops(e.message); }
}

// ---------------------------------------------------------------- end of a deal
function dealRows(d, names) {
  const snap = app.snap;
  const keys = snap.breakdown_keys.filter((key) => d.breakdown[0][key] !== undefined);
  const rows = keys.map((key) => el("tr", {}, el("th", { scope: "row", text: t("bonus." + key) }),
    ...d.breakdown.map((b) => el("td", { text: b[key] }))));
  if (d.cards) rows.push(el("tr", {}, el("th", { scope: "row", text: t("cards_taken") }), ...d.cards.map((c) => el("td", { text: c }))));
  rows.push(el("tr", { class: "total" }, el("th", { scope: "row", text: t("total") }), ...d.points.map((p) => el("td", { text: p }))));
  return [el("thead", {}, el("tr", {}, el("th", { text: t("item") }), ...names.map((n) => el("th", { scope: "col", text: n })))),
    el("tbody", {}, ...rows)];
}

function showDealEnd() {
  const snap = app.snap;
  const k = app.shownDeals;
  const last = snap.done && k === snap.deals.length - 1;
  const names = teamNames();
  $("end-title").textContent = last ? (snap.options.match ? t("match_over") : t("game_over"))
    : t("deal_over") + (snap.options.match ? ` · ${t("deal_n", { n: k + 1 })}` : "");
  $("end-table").replaceChildren(...dealRows(snap.deals[k], names));
  if (snap.options.match) {
    const totals = [0, 1].map((s) => snap.deals.slice(0, k + 1).reduce((a, r) => a + r.points[s], 0));
    $("end-match").textContent = `${t("bonus.totals")}: ${names[0]} ${totals[0]}, ${names[1]} ${totals[1]} (${t("match_to")})`;
  } else $("end-match").textContent = "";
  let verdict = "";
  if (last) {
    const w = snap.result.winner;
    const four = snap.seats.length === 4;
    verdict = w === null ? t("draw") : w === 0 ? (four ? t("we_win") : t("you_win")) : (four ? t("they_win") : t("ai_wins"));
  }
  $("end-verdict").textContent = verdict;
  $("end-continue").hidden = last;
  $("end-again").hidden = !last;
  $("end-menu").hidden = !last;
  app.shownDeals = k + 1;
  $("end-dialog").showModal();
  (last ? $("end-again") : $("end-continue")).focus();
}

// the next deal is drawn once the end-of-deal dialog is closed
function closeEnd(then) {
  app.final = null;
  document.body.dataset.pending = app.snap && app.snap.deals.length > app.shownDeals ? "1" : "0";
  $("end-dialog").close();
  then();
}

// ---------------------------------------------------------------- start
async function setupLanguages() {
  const pref = localStorage.getItem(KEYS.lang) || (navigator.language || "en").slice(0, 2);
  await loadLanguage(app.languages.includes(pref) ? pref : "en");
  const sel = $("lang");
  sel.replaceChildren(...app.languages.map((code) => el("option", { value: code, text: code })));
  sel.value = app.lang;
  await Promise.all(app.languages.map(async (code) => {  // each language's own name
    const T = code === app.lang ? app.T : await api("GET", `/static/i18n/${code}.json`);
    sel.querySelector(`option[value="${code}"]`).textContent = T.lang_name;
  }));
  sel.addEventListener("change", async () => {
    await loadLanguage(sel.value);
    say("");
    if (app.snap) render(); else renderLobby();
  });
}

function bindTable() {
  $("hint").addEventListener("click", hint);
  $("rules-here").addEventListener("click", () => showRules(app.snap.game));
  $("to-menu").addEventListener("click", () => {
    if (app.snap && !app.snap.done) { $("leave-dialog").showModal(); return; }
    leaveTable();
    showLobby();
  });
  $("leave-yes").addEventListener("click", () => { $("leave-dialog").close(); leaveTable(); showLobby(); });
  $("play-selected").addEventListener("click", playSelected);
  $("cancel-selected").addEventListener("click", () => { app.selected = null; app.picked.clear(); say(""); render(); });
  $("end-continue").addEventListener("click", () => closeEnd(() => { render(); schedule(); }));
  $("end-again").addEventListener("click", () => closeEnd(() => {
    const { game, deck } = app.snap;
    leaveTable();
    startGame(game, deck);
  }));
  $("end-menu").addEventListener("click", () => closeEnd(() => { leaveTable(); showLobby(); }));
  $("end-dialog").addEventListener("cancel", (e) => e.preventDefault());
}

async function init() {
  document.body.prepend(CARD_ART.sprite());
  loadSettings();
  bindSettings();
  const games = await api("GET", "/v1/games");
  app.catalog = games.decks; app.ais = games.ais; app.levels = games.levels || {}; app.languages = games.languages;
  await setupLanguages();
  $("settings-button").addEventListener("click", () => $("settings-dialog").showModal());
  $("ai").addEventListener("change", showAiAbout);
  for (const b of document.querySelectorAll(".close-dialog")) b.addEventListener("click", (e) => e.target.closest("dialog").close());
  bindTable();
  for (const d of document.querySelectorAll("dialog")) {
    d.addEventListener("close", () => { if (app.snap && !dialogOpen()) { render(); schedule(); } });
  }
  renderLobby();
  await resume();
  document.body.dataset.ready = "1";
}

document.addEventListener("DOMContentLoaded", () => { init().catch((e) => oops(e.message)); });
