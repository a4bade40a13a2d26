// The table page: plain JavaScript, no build step. The server owns the game
// (cavallo_env/tables.py); this page shows seat 0's snapshot, sends your moves
// and asks the AI for its moves one at a time, at a pace a person can follow.
"use strict";

const PACE_MS = { slow: 1600, normal: 900, fast: 350 };
// ?pace=<ms> sets the AI's pace for a demo or a test (0..5000 ms)
const PACE_PARAM = new URLSearchParams(location.search).get("pace");
const pace = () => (PACE_PARAM !== null && Number(PACE_PARAM) >= 0 && Number(PACE_PARAM) <= 5000
  ? Number(PACE_PARAM) : PACE_MS[app.settings.pace]);
const PIPS = {
  coins: "●", cups: "▽", swords: "⚔", clubs: "♣", hearts: "♥", diamonds: "♦", spades: "♠",
};
const $ = (id) => document.getElementById(id);

const app = {
  T: {}, rules: {}, lang: "en", languages: ["en"], catalog: null, ais: [],
  snap: null, selected: null, picked: new Set(), timer: null, shownDeals: 0,
  log: [], lastN: 0, busy: false,
  settings: { size: "medium", pace: "normal", contrast: false },
};

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
// a bot spec as a player reads it: "the shipped AI" for policy:default
function aiName(spec) { return (app.T.ai_names && app.T.ai_names[spec]) || spec; }
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
function say(text) { $("status").textContent = text || ""; }

function parseCard(name) {
  const i = name.lastIndexOf("-");
  return { rank: name.slice(0, i), suit: name.slice(i + 1) };
}
function cardName(name) {
  const c = parseCard(name);
  return t("card", { rank: t("rank." + c.rank), suit: t("suit." + c.suit) });
}
function cardList(names) { return names.map(cardName).join(" + "); }

function cardEl(name, opts = {}) {
  const c = parseCard(name);
  const tag = opts.onclick ? "button" : "span";
  const e = el(tag, {
    class: `card suit-${c.suit}` + (opts.cls ? " " + opts.cls : ""),
    "data-card": name, "aria-label": cardName(name) + (opts.extra ? ", " + opts.extra : ""),
    title: cardName(name), type: opts.onclick ? "button" : null,
    "aria-pressed": opts.pressed === undefined ? null : String(opts.pressed),
    onclick: opts.onclick, role: opts.onclick ? null : "img",
  }, el("span", { class: "rank", "aria-hidden": "true", text: c.rank }),
  el("span", { class: "pip", "aria-hidden": "true", text: PIPS[c.suit] || "?" }));
  return e;
}

function bonusText(bonuses) {
  return bonuses && bonuses.length ? " " + t("bonus_list", { bonuses: bonuses.map((b) => t("bonus." + b)).join(", ") }) : "";
}
function moveText(m) {
  let s;
  if (app.snap && app.snap.game === "briscola") s = t("play_card", { card: cardName(m.play) });
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
async function api(method, path, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) { opts.body = JSON.stringify(body); opts.headers["content-type"] = "application/json"; }
  let r;
  try { r = await fetch(path, opts); } catch (e) { throw new Error(t("error", { detail: e.message })); }
  let data = null;
  try { data = await r.json(); } catch (e) { data = null; }
  if (!r.ok) {
    const code = data && data.code;
    const said = code && app.T.errors && app.T.errors[code];
    const err = new Error(r.status === 404 ? t("expired") : said ? t("errors." + code)
      : t("error", { detail: (data && data.detail) || r.status }));
    err.status = r.status;
    throw err;
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
  localStorage.setItem("cavallo.lang", lang);
}

// ---------------------------------------------------------------- settings
function applySettings() {
  const s = app.settings;
  document.body.classList.remove("size-small", "size-medium", "size-large");
  document.body.classList.add("size-" + s.size);
  document.body.classList.toggle("contrast", !!s.contrast);
  for (const r of document.querySelectorAll('input[name="size"]')) r.checked = r.value === s.size;
  for (const r of document.querySelectorAll('input[name="pace"]')) r.checked = r.value === s.pace;
  $("contrast").checked = !!s.contrast;
  localStorage.setItem("cavallo.settings", JSON.stringify(s));
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

function renderLobby() {
  const ai = $("ai");
  const current = ai.value;
  ai.replaceChildren(...app.ais.map((spec, i) =>
    el("option", { value: spec, text: aiName(spec) })));
  if (current) ai.value = current;
  const decks = app.catalog.map((d) => {
    const games = d.games.map((g) => {
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
    });
    return el("section", { class: "deck", "aria-label": t("deck_" + d.deck) },
      el("h3", { text: t("deck_" + d.deck) }), el("p", { class: "note", text: t("deck_" + d.deck + "_note") }), ...games);
  });
  $("decks").replaceChildren(...decks);
}

function leaveTable() {
  if (app.snap) api("DELETE", `/v1/tables/${app.snap.id}`).catch(() => {});
}

function showLobby() {
  clearTimeout(app.timer);
  app.snap = null;
  document.body.removeAttribute("data-table");
  $("table").hidden = true;
  $("lobby").hidden = false;
  say("");
  renderLobby();
}

// ---------------------------------------------------------------- a game
async function startGame(game, deck) {
  if (app.starting) return;  // one table per click
  app.starting = true;
  say(t("loading"));
  try {
    const snap = await api("POST", "/v1/tables", { game, deck, ai: $("ai").value || undefined });
    clearTimeout(app.timer);
    app.log = []; app.shownDeals = 0; app.lastN = 0; app.selected = null; app.picked.clear();
    $("lobby").hidden = true;
    $("table").hidden = false;
    say("");
    show(snap);
    $("main").focus();
  } catch (e) { say(e.message); } finally { app.starting = false; }
}

function show(snap) {
  app.snap = snap;
  document.body.dataset.table = snap.id;
  document.body.dataset.moves = snap.moves;
  document.body.dataset.game = snap.game;
  document.body.dataset.deck = snap.deck;
  document.body.dataset.yourTurn = snap.your_turn ? "1" : "0";
  document.body.dataset.pending = snap.deals.length > app.shownDeals ? "1" : "0";
  if (snap.last && snap.last.n > app.lastN) {
    app.log.push(snap.last);
    app.lastN = snap.last.n;
    if (snap.last.seat !== 0) say(t("moved", { who: seatName(snap.last.seat), move: moveText(snap.last) }));
  }
  if (!snap.your_turn) { app.selected = null; app.picked.clear(); }
  render();
  schedule();
}

function dialogOpen() { return [...document.querySelectorAll("dialog")].some((d) => d.open); }

function schedule() {
  clearTimeout(app.timer);
  const snap = app.snap;
  if (!snap || dialogOpen()) return;  // the AI waits while a dialog is up
  if (snap.deals.length > app.shownDeals) {
    app.timer = setTimeout(showDealEnd, snap.last && snap.last.seat !== 0 ? pace() : 300);
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
    if (current(id)) show(snap);
  } catch (e) { if (current(id)) failed(e); } finally { app.busy = false; }
}

function failed(e) {
  say(e.message);
  const id = app.snap && app.snap.id;
  if (e.status === 404) setTimeout(() => { if (current(id)) showLobby(); }, 1500);
  else if (e.status === 409) api("GET", `/v1/tables/${id}`).then((s) => current(id) && show(s)).catch(() => {});
  else if (!app.snap.your_turn) {  // the AI failed or the network did: try again shortly
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
    if (app.snap.game !== "briscola") body.capture = move.capture || [];
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

function clickHand(card) {
  const snap = app.snap;
  if (!snap.your_turn) { say(t("not_your_turn")); return; }
  const moves = movesOf(card);
  if (!moves.length) { say(t("card_has_no_move", { card: cardName(card) })); return; }
  if (snap.game === "briscola") { send(moves[0]); return; }
  app.selected = app.selected === card ? null : card;
  app.picked.clear();
  say(app.selected ? t("pick_capture", { card: cardName(card) }) : "");
  render();
  const first = document.querySelector("#choice-list .choice");
  if (first) first.focus();  // the moves of that card, next in reach of the keyboard
}

function clickTable(card) {
  const snap = app.snap;
  if (!snap.your_turn) { say(t("not_your_turn")); return; }
  if (!app.selected) { say(t("pick_card")); return; }
  const moves = movesOf(app.selected);
  if (!moves.some((m) => m.capture.includes(card))) {
    say(t("not_in_any_set", { card: cardName(card), played: cardName(app.selected) }));
    return;
  }
  if (app.picked.has(card)) app.picked.delete(card); else app.picked.add(card);
  say(t("selected_count", { n: app.picked.size }));
  render();
}

function playSelected() {
  if (!app.selected) { say(t("pick_card")); return; }
  const moves = movesOf(app.selected);
  const picked = [...app.picked];
  const match = moves.find((m) => sameSet(m.capture, picked));
  if (match) { send(match); return; }
  if (!picked.length) { say(t("must_capture", { card: cardName(app.selected) })); return; }
  say(t("selection_not_legal", {
    cards: cardList(picked), played: cardName(app.selected),
    legal: moves.map((m) => (m.capture.length ? cardList(m.capture) : t("place", { card: cardName(m.play) }))).join("; "),
  }));
}

async function hint() {
  if (!app.snap || !app.snap.your_turn) { say(t("not_your_turn")); return; }
  const id = app.snap.id;
  try {
    const h = await api("GET", `/v1/tables/${id}/hint`);
    if (!current(id) || h.moves !== app.snap.moves) return;  // asked about a position that is gone
    const m = app.snap.legal.find((x) => x.play === h.move.play && sameSet(x.capture || [], h.move.capture || [])) || h.move;
    say(t("hint_says", { move: moveText(m) }));
    if (app.snap.game !== "briscola") {
      app.selected = m.play; app.picked = new Set(m.capture || []);
      render();
    } else {
      for (const c of document.querySelectorAll("#hand .card")) c.classList.toggle("in-set", c.dataset.card === m.play);
    }
  } catch (e) { if (current(id)) say(e.message); }
}

// ---------------------------------------------------------------- drawing
function focusKey() {
  const a = document.activeElement;
  if (!a || a === document.body) return null;
  if (a.dataset.card && a.closest("#hand")) return `#hand [data-card="${a.dataset.card}"]`;
  if (a.dataset.card && a.closest("#felt")) return `#felt [data-card="${a.dataset.card}"]`;
  if (a.classList.contains("choice")) return `#choice-list [data-capture="${a.dataset.capture}"]`;
  return null;
}

function render() {
  const key = focusKey();
  drawTable();
  if (key) {  // the same control, redrawn, keeps the keyboard's place
    const again = document.querySelector(key);
    if (again) again.focus(); else $("turn").focus();
  }
}

function drawTable() {
  const snap = app.snap;
  if (!snap) return;
  const v = snap.view;
  $("table-title").textContent = `${snap.title} · ${t("deck_" + snap.deck)}` +
    (snap.options.match ? ` · ${t("deal_n", { n: snap.deals.length + (snap.done ? 0 : 1) })}` : "");
  let turn;
  if (snap.done) turn = snap.options.match ? t("match_over") : t("game_over");
  else if (snap.your_turn) turn = t("your_turn") + " — " + (snap.game === "briscola" ? t("pick_card_briscola") : t("pick_card"));
  else turn = t("ai_thinking", { who: seatName(snap.to_play) });
  $("turn").textContent = turn;
  $("hint").disabled = !snap.your_turn;

  // the other seats: face-down hands and their last card of this deal
  const seats = [];
  for (const s of snap.seats) {
    if (s.who === "you") continue;
    const n = v.hand_sizes[s.seat];
    const mine = v.history.filter((h) => h.seat === s.seat);
    const lastMove = mine.length ? mine[mine.length - 1] : null;
    seats.push(el("div", { class: "seat" + (snap.to_play === s.seat ? " to-play" : ""), "data-seat": s.seat },
      el("h3", { text: seatName(s.seat) }),
      el("div", { class: "backs", role: "img", "aria-label": t("cards_in_hand", { n }) },
        ...Array.from({ length: n }, () => el("span", { class: "back" }))),
      el("div", { text: t("cards_in_hand", { n }) }),
      el("div", { class: "last", text: lastMove ? moveText(lastMove) : "" })));
  }
  $("seats").replaceChildren(...seats);

  // piles, stock, trump, tricks
  const names = teamNames();
  const extras = [el("div", { class: "box", id: "piles" }, el("h3", { text: t("pile") }),
    ...v.piles.map((p, team) => el("div", { "data-team": team }, `${names[team]}: ${t("pile_n", { n: p.length })}`)))];
  if (v.stock_size !== undefined) {
    extras.push(el("div", { class: "box", id: "stock" }, el("h3", { text: t("stock") }),
      el("div", { text: t("stock_n", { n: v.stock_size }) })));
  }
  if (snap.game === "briscola") {
    extras.push(el("div", { class: "box", id: "trump" }, el("h3", { text: t("trump") }),
      cardEl(v.trump, { cls: "trump-mark", extra: t("trump") })));
    const h = v.history;
    const done = h.length - (h.length % 2);
    if (done >= 2) {
      const trick = h.slice(done - 2, done);
      const winner = h.length % 2 ? h[h.length - 1].seat : v.leader;
      extras.push(el("div", { class: "box", id: "last-trick" }, el("h3", { text: t("last_trick") }),
        el("div", { class: "cards" }, ...trick.map((m) => cardEl(m.play))),
        el("div", { text: t("took_trick", { who: seatName(winner) }) })));
    }
  }
  $("extras").replaceChildren(...extras);

  // the felt: the table cards (capture games) or the trick (Briscola)
  const felt = $("felt");
  if (snap.game === "briscola") {
    $("felt-title").textContent = t("trick");
    felt.replaceChildren(...v.trick.map((c) => cardEl(c, { cls: "fresh" })));
  } else {
    $("felt-title").textContent = t("the_table");
    const moves = app.selected ? movesOf(app.selected) : [];
    const inSet = new Set(moves.flatMap((m) => m.capture));
    const fresh = snap.last && !snap.last.capture.length && !snap.last.deal_ended ? snap.last.play : null;
    felt.replaceChildren(...v.table.map((c) => cardEl(c, {
      onclick: () => clickTable(c), pressed: app.picked.has(c),
      cls: [app.picked.has(c) ? "picked" : "", inSet.has(c) ? "in-set" : "", c === fresh ? "fresh" : ""].join(" ").trim(),
    })));
    if (!v.table.length) felt.append(el("p", { text: t("table_empty") }));
  }
  felt.setAttribute("aria-label", $("felt-title").textContent);

  // your hand
  $("hand").replaceChildren(...v.hand.map((c) => cardEl(c, {
    onclick: () => clickHand(c), pressed: snap.game === "briscola" ? undefined : app.selected === c,
    cls: app.selected === c ? "selected" : "",
  })));
  $("hand").setAttribute("aria-label", t("your_hand"));

  renderChoices();
  renderScore();
  renderLog();
}

function renderChoices() {
  const box = $("choices");
  if (!app.selected || !app.snap.your_turn || app.snap.game === "briscola") { box.hidden = true; return; }
  box.hidden = false;
  $("choices-title").textContent = t("choose_move", { card: cardName(app.selected) });
  const picked = [...app.picked];
  $("choice-list").replaceChildren(...movesOf(app.selected).map((m) => el("button", {
    type: "button", class: "choice", "aria-pressed": String(sameSet(m.capture, picked)),
    "data-capture": m.capture.join(","), text: moveText(m), onclick: () => send(m),
  })));
}

function renderScore() {
  const snap = app.snap;
  const names = teamNames();
  const rows = Object.entries(snap.score).map(([k, vals]) =>
    el("tr", {}, el("th", { scope: "row", text: t("bonus." + k) }), ...vals.map((x) => el("td", { text: x }))));
  $("scoreboard").replaceChildren(el("table", {},
    el("caption", { text: t("score") + (snap.options.match ? ` (${t("match_to")})` : "") }),
    el("thead", {}, el("tr", {}, el("th", { text: "" }), ...names.map((n) => el("th", { scope: "col", text: n })))),
    el("tbody", {}, ...rows)));
}

function renderLog() {
  const items = app.log.map((m) => el("li", { text: t("moved", { who: seatName(m.seat), move: moveText(m) }) }));
  const log = $("log");
  log.replaceChildren(...items);
  log.scrollTop = log.scrollHeight;
}

// ---------------------------------------------------------------- end of a deal
function showDealEnd() {
  const snap = app.snap;
  const k = app.shownDeals;
  const d = snap.deals[k];
  const last = snap.done && k === snap.deals.length - 1;
  const names = teamNames();
  $("end-title").textContent = last ? (snap.options.match ? t("match_over") : t("game_over"))
    : t("deal_over") + (snap.options.match ? ` · ${t("deal_n", { n: k + 1 })}` : "");
  const keys = snap.breakdown_keys.filter((key) => d.breakdown[0][key] !== undefined);
  const rows = keys.map((key) => el("tr", {}, el("th", { scope: "row", text: t("bonus." + key) }),
    ...d.breakdown.map((b) => el("td", { text: b[key] }))));
  if (d.cards) rows.push(el("tr", {}, el("th", { scope: "row", text: t("cards_taken") }), ...d.cards.map((c) => el("td", { text: c }))));
  rows.push(el("tr", { class: "total" }, el("th", { scope: "row", text: t("total") }), ...d.points.map((p) => el("td", { text: p }))));
  $("end-table").replaceChildren(
    el("thead", {}, el("tr", {}, el("th", { text: t("item") }), ...names.map((n) => el("th", { scope: "col", text: n })))),
    el("tbody", {}, ...rows));
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
  document.body.dataset.pending = snap.deals.length > app.shownDeals ? "1" : "0";
  $("end-dialog").showModal();
  (last ? $("end-again") : $("end-continue")).focus();
}

function closeEnd(then) {
  $("end-dialog").close();
  then();
}

// ---------------------------------------------------------------- start
async function init() {
  const saved = JSON.parse(localStorage.getItem("cavallo.settings") || "null");
  if (saved) Object.assign(app.settings, saved);
  applySettings();
  const games = await api("GET", "/v1/games");
  app.catalog = games.decks; app.ais = games.ais; app.languages = games.languages;
  const pref = localStorage.getItem("cavallo.lang") || (navigator.language || "en").slice(0, 2);
  await loadLanguage(app.languages.includes(pref) ? pref : "en");
  const sel = $("lang");
  sel.replaceChildren(...app.languages.map((code) => el("option", { value: code, text: code })));
  sel.value = app.lang;
  // each language's own name
  await Promise.all(app.languages.map(async (code) => {
    const T = code === app.lang ? app.T : await api("GET", `/static/i18n/${code}.json`);
    sel.querySelector(`option[value="${code}"]`).textContent = T.lang_name;
  }));
  sel.addEventListener("change", async () => {
    await loadLanguage(sel.value);
    say("");
    if (app.snap) render(); else renderLobby();
  });
  $("settings-button").addEventListener("click", () => $("settings-dialog").showModal());
  for (const b of document.querySelectorAll(".close-dialog")) b.addEventListener("click", (e) => e.target.closest("dialog").close());
  for (const r of document.querySelectorAll('input[name="size"], input[name="pace"]')) {
    r.addEventListener("change", () => { app.settings[r.name] = r.value; applySettings(); });
  }
  $("contrast").addEventListener("change", (e) => { app.settings.contrast = e.target.checked; applySettings(); });
  $("hint").addEventListener("click", hint);
  $("rules-here").addEventListener("click", () => showRules(app.snap.game));
  $("to-menu").addEventListener("click", () => {
    if (app.snap && !app.snap.done && !confirm(t("leave_confirm"))) return;
    leaveTable();
    showLobby();
  });
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
  for (const d of document.querySelectorAll("dialog")) {
    d.addEventListener("close", () => { if (app.snap && !dialogOpen()) { render(); schedule(); } });
  }
  window.addEventListener("pagehide", () => {  // free the table for others
    if (app.snap) fetch(`/v1/tables/${app.snap.id}`, { method: "DELETE", keepalive: true }).catch(() => {});
  });
  document.body.dataset.ready = "1";
  renderLobby();
}

document.addEventListener("DOMContentLoaded", () => { init().catch((e) => say(e.message)); });
