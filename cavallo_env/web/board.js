// The board: the seats around the felt, the table cards or the trick, your hand, the
// piles and the stock; the played card moving to the table and the taken cards to
// their pile (Web Animations, none under prefers-reduced-motion). table.js owns the state.
"use strict";

const reducedMotion = () => matchMedia("(prefers-reduced-motion: reduce)").matches;

// where a seat sits, seen from seat 0 at the bottom: play goes anticlockwise, so the next seat is on the right
function seatPos(seat, n) {
  if (n === 2) return seat === 0 ? "bottom" : "top";
  return ["bottom", "right", "top", "left"][seat % 4];
}

function cardEl(name, opts = {}) {
  const c = parseCard(name);
  const tag = opts.onclick ? "button" : "span";
  const e = el(tag, {
    class: `card suit-${c.suit}` + (opts.cls ? " " + opts.cls : ""),
    "data-card": name, "aria-label": cardName(name) + (opts.extra ? ", " + opts.extra : ""),
    title: cardName(name), type: opts.onclick ? "button" : null,
    "aria-pressed": opts.pressed === undefined ? null : String(opts.pressed),
    onclick: opts.onclick, role: opts.onclick ? null : "img",
  });
  e.innerHTML = CARD_ART.face(name, app.snap.deck);
  return e;
}
function backEl(cls = "mini") {
  const e = el("span", { class: "card back " + cls, "aria-hidden": "true" });
  e.innerHTML = CARD_ART.back();
  return e;
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

// the view to draw: the snapshot's, or the table as the last deal ended (its hands played out)
function shownView() {
  const v = app.snap.view;
  if (!app.final) return v;
  const stock = v.stock_size === undefined ? {} : { stock_size: 0 };
  return { ...v, ...app.final, ...stock, hand: [], hand_sizes: v.hand_sizes.map(() => 0), history: [] };
}

function turnText(snap) {
  if (app.final) return snap.done ? (snap.options.match ? t("match_over") : t("game_over")) : t("deal_over");
  if (snap.done) return snap.options.match ? t("match_over") : t("game_over");
  if (snap.your_turn) return t("your_turn") + " — " + (tricks(snap) ? t("pick_card_briscola") : t("pick_card"));
  return t("ai_thinking", { who: seatName(snap.to_play) });
}

function drawTable() {
  const snap = app.snap;
  if (!snap) return;
  const v = shownView();
  $("table-title").textContent = `${snap.title} · ${t("deck_" + snap.deck)}` +
    (snap.options.match ? ` · ${t("deal_n", { n: snap.deals.length + (snap.done || app.final ? 0 : 1) })}` : "");
  $("turn").textContent = turnText(snap);
  $("hint").disabled = !snap.your_turn || !!app.final;
  $("board").dataset.seats = snap.seats.length;
  $("board").classList.toggle("to-play-you", snap.your_turn && !app.final);
  $("seats").replaceChildren(...snap.seats.filter((s) => s.who !== "you").map((s) => seatEl(s, v)));
  $("extras").replaceChildren(...extrasEls(v));
  drawFelt(v);
  drawHand(v);
  renderChoices();
  renderScore();
  renderLog();
}

function seatEl(s, v) {
  const snap = app.snap;
  const n = v.hand_sizes[s.seat];
  const mine = v.history.filter((h) => h.seat === s.seat);
  const lastMove = mine.length ? mine[mine.length - 1] : null;
  const playing = snap.to_play === s.seat && !app.final;
  return el("div", { class: `seat pos-${seatPos(s.seat, snap.seats.length)}` + (playing ? " to-play" : ""), "data-seat": s.seat },
    el("h3", { text: seatName(s.seat) }),
    el("div", { class: "backs", role: "img", "aria-label": t("cards_in_hand", { n }) },
      ...Array.from({ length: n }, () => backEl())),
    el("div", { class: "count", text: t("cards_in_hand", { n }) }),
    el("div", { class: "last", text: lastMove ? moveText(lastMove) : "" }));
}

function extrasEls(v) {
  const snap = app.snap;
  const names = teamNames();
  const out = [];
  if (tricks(snap)) {
    out.push(el("div", { class: "box", id: "trump" }, el("h3", { text: t("trump") }),
      cardEl(v.trump, { cls: "trump-mark small", extra: t("trump") })));
  }
  if (v.stock_size !== undefined) {
    out.push(el("div", { class: "box", id: "stock" }, el("h3", { text: t("stock") }),
      v.stock_size ? backEl("small") : null, el("div", { text: t("stock_n", { n: v.stock_size }) })));
  }
  out.push(el("div", { class: "box", id: "piles" }, el("h3", { text: t("pile") }),
    ...v.piles.map((p, team) => el("div", { class: "pile", "data-pile": team },
      el("span", { class: "stack" }, p.length ? backEl("mini") : null),
      el("div", { "data-team": team }, `${names[team]}: ${t("pile_n", { n: p.length })}`)))));
  if (tricks(snap)) {
    const trick = lastTrick(v);
    if (trick) out.push(trick);
  }
  return out;
}

// a trick game (Briscola): the last complete trick, its winner's card marked
function lastTrick(v) {
  const h = v.history;
  const done = h.length - (h.length % 2);
  if (done < 2) return null;
  const trick = h.slice(done - 2, done);
  const winner = h.length % 2 ? h[h.length - 1].seat : v.leader;
  return el("div", { class: "box", id: "last-trick" }, el("h3", { text: t("last_trick") }),
    el("div", { class: "cards" }, ...trick.map((m) => cardEl(m.play, { cls: "small" + (m.seat === winner ? " winner" : "") }))),
    el("div", { text: t("took_trick", { who: seatName(winner) }) }));
}

function drawFelt(v) {
  const snap = app.snap;
  const felt = $("felt");
  if (tricks(snap)) {
    $("felt-title").textContent = t("trick");
    const n = snap.seats.length;
    const won = app.final && snap.last && snap.last.trick ? snap.last.trick.winner : null;  // the deal's last trick
    felt.replaceChildren(...v.trick.map((c, i) => {
      const seat = (v.leader + i) % n;
      return cardEl(c, { cls: "by-" + seatPos(seat, n) + (seat === won ? " winner" : "") });
    }));
  } else {
    $("felt-title").textContent = t("the_table");
    const moves = app.selected ? movesOf(app.selected) : [];
    const inSet = new Set(moves.flatMap((m) => m.capture));
    const hinted = new Set(app.hint && app.hint.capture ? app.hint.capture : []);
    felt.replaceChildren(...v.table.map((c) => cardEl(c, {
      onclick: app.final ? null : () => clickTable(c), pressed: app.final ? undefined : app.picked.has(c),
      cls: [app.picked.has(c) ? "picked" : "", inSet.has(c) || hinted.has(c) ? "in-set" : ""].join(" ").trim(),
    })));
    if (!v.table.length) felt.append(el("p", { class: "empty", text: t("table_empty") }));
  }
  felt.setAttribute("aria-label", $("felt-title").textContent);
}

function drawHand(v) {
  const snap = app.snap;
  const hinted = app.hint ? app.hint.play : null;
  $("hand").replaceChildren(...v.hand.map((c) => cardEl(c, {
    onclick: () => clickHand(c), pressed: tricks(snap) ? undefined : app.selected === c,
    cls: [app.selected === c ? "selected" : "", c === hinted ? "in-set" : "",
      snap.your_turn && movesOf(c).length ? "playable" : ""].join(" ").trim(),
  })));
  $("hand").setAttribute("aria-label", t("your_hand"));
}

// the moves of the chosen card, offered only when it has more than one (which table cards to take)
function renderChoices() {
  const box = $("choices");
  if (!app.selected || !app.snap.your_turn || app.final || movesOf(app.selected).length < 2) { box.hidden = true; return; }
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

// ---------------------------------------------------------------- what a move did, shown
// a trick's winner, a scopa, a capture's bonuses: a banner on the felt for a moment
function announce(last) {
  const banner = $("banner");
  let text = "", kind = "";
  if (last.trick) { text = t("trick_taken", { who: seatName(last.trick.winner), n: last.trick.points }); kind = "trick"; }
  else if (last.bonuses && last.bonuses.includes("scope")) { text = `${t("scopa_banner")} ${seatName(last.seat)}`; kind = "scopa"; }
  else if (last.bonuses && last.bonuses.length) { text = `${seatName(last.seat)}: ${last.bonuses.map((b) => t("bonus." + b)).join(", ")}`; kind = "bonus"; }
  if (!text) return;
  banner.textContent = text;
  banner.className = "banner " + kind;
  banner.hidden = false;
  clearTimeout(app.bannerTimer);
  app.bannerTimer = setTimeout(() => { banner.hidden = true; }, Math.max(1800, pace() * 2));
}

function rectsOf(selector, key) {
  return new Map([...document.querySelectorAll(selector)].map((e) => [e.dataset[key], e.getBoundingClientRect()]));
}
// where things are before a redraw: the cards on the felt and in the hand, the seats, the piles
function measure() {
  const seats = rectsOf("#seats .seat", "seat");
  seats.set("0", $("hand").getBoundingClientRect());
  return { felt: rectsOf("#felt .card", "card"), hand: rectsOf("#hand .card", "card"), seats,
    piles: rectsOf("#piles .pile", "pile") };
}

function countAnimation() { document.body.dataset.animations = String(Number(document.body.dataset.animations || 0) + 1); }

// a card drawn at its new place slides there from where it came from
function slideIn(e, from) {
  const to = e.getBoundingClientRect();
  const dx = from.left + from.width / 2 - (to.left + to.width / 2), dy = from.top + from.height / 2 - (to.top + to.height / 2);
  e.animate([{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "none" }], { duration: 320, easing: "ease-out" });
  countAnimation();
}

// the cards a move took off the felt fly (as copies) to the pile of the side that took them
function sweep(cards, start, mid, pile) {
  for (const [card, rect] of cards) {
    const ghost = cardEl(card, { cls: "ghost" });
    ghost.setAttribute("aria-hidden", "true");
    Object.assign(ghost.style, { left: `${rect.left}px`, top: `${rect.top}px`, width: `${rect.width}px` });
    document.body.append(ghost);
    const at = (r, extra = "") => `translate(${r.left + r.width / 2 - (rect.left + rect.width / 2)}px, ` +
      `${r.top + r.height / 2 - (rect.top + rect.height / 2)}px)${extra}`;
    const first = card === start ? mid : rect;
    const a = ghost.animate([{ transform: "none" }, { transform: at(first), offset: 0.35 }, { transform: at(first), offset: 0.65 },
      { transform: at(pile, " scale(.35)"), opacity: 0.2 }], { duration: 900, easing: "ease-in-out" });
    a.onfinish = () => ghost.remove();
    a.oncancel = () => ghost.remove();
  }
  countAnimation();
}

// a card-sized box centred on a rect (a seat's whole box, say)
function cardBox(r) {
  const w = parseFloat(getComputedStyle($("hand")).getPropertyValue("--card-w")) *
    parseFloat(getComputedStyle(document.documentElement).fontSize) || 64;
  const h = w * 1.4;
  return { left: r.left + r.width / 2 - w / 2, top: r.top + r.height / 2 - h / 2, width: w, height: h };
}

function animateMove(last, prev, before) {
  if (reducedMotion()) return;
  const seen = (last.seat === 0 && before.hand.get(last.play)) || before.seats.get(String(last.seat));
  if (!seen) return;
  const from = last.seat === 0 && before.hand.get(last.play) ? seen : cardBox(seen);
  const landed = document.querySelector(`#felt .card[data-card="${last.play}"]`);
  if (landed) { slideIn(landed, from); return; }
  const taken = last.trick ? prev.view.trick : last.capture || [];
  const cards = taken.filter((c) => before.felt.has(c)).map((c) => [c, before.felt.get(c)]);
  const team = prev.seats[last.trick ? last.trick.winner : last.seat].team;
  const pile = measure().piles.get(String(team));
  if (!pile) return;
  const feltBox = $("felt").getBoundingClientRect();
  const mid = { left: feltBox.left + feltBox.width / 2 - from.width / 2, top: feltBox.top + feltBox.height / 2 - from.height / 2,
    width: from.width, height: from.height };
  sweep(cards.concat([[last.play, from]]), last.play, mid, pile);
}
