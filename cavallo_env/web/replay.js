// /replay?table=ID: a finished game, move by move, with every hand shown (GET /v1/stats/games/ID).
// Cards are the table page's SVG faces (cards.js), else text cards (stats-common.js); only a finished
// game is ever sent.
import { $, app, aiName, cardEl, cardName, el, gameLabel, getJSON, scoreName, setupLanguage, t } from "/static/stats-common.js";

let game = null;
let at = 0;
let timer = null;

const card = (name) => cardEl(name, game.deck);

function seatName(seat) {
  const s = game.seats[seat];
  const who = s.who === "person" ? t("seat_person") : s.who === "partner" ? t("seat_partner") : t("seat_ai");
  return `${who} (${t("seat_n", { n: seat })})`;
}
// [people's, AI's] of a per-team pair
function sides(pair) {
  const team = game.seats.find((s) => s.who === "person").team;
  return [pair[team], pair[1 - team]];
}

function moveText(frame) {
  const m = frame.move;
  if (!m) return t("start_of_deal", { n: frame.deal });
  const who = seatName(m.seat);
  if (m.capture && m.capture.length) {
    return t("took", { who, card: cardName(m.play), cards: m.capture.map(cardName).join(", ") });
  }
  return t("played", { who, card: cardName(m.play) });
}

function renderSeats(frame) {
  $("seats").replaceChildren(...frame.hands.map((hand, seat) => el("div",
    { class: `seat who-${game.seats[seat].who}` + (frame.move && frame.move.seat === seat ? " moved" : "") },
    el("h3", { text: seatName(seat) }),
    el("div", { class: "cards", role: "group", "aria-label": seatName(seat) },
      ...(hand.length ? hand.map(card) : [el("span", { class: "empty", text: t("empty") })])))));
}

// the cards of a trick this move completed: the trick before it and the card played (it is empty now)
function completedTrick(frame) {
  const before = at > 0 ? game.frames[at - 1].public.trick : null;
  return frame.move && before && before.length && !frame.public.trick.length ? [...before, frame.move.play] : null;
}

function renderMiddle(frame) {
  const pub = frame.public;
  const trick = "trick" in pub;
  const done = trick ? completedTrick(frame) : null;
  $("middle-title").textContent = t(done ? "trick_done" : trick ? "trick" : "table");
  const cards = done || (trick ? pub.trick : pub.table) || [];
  $("middle").replaceChildren(...(cards.length ? cards.map(card) : [el("span", { class: "empty", text: t("empty") })]));
  const extras = [];
  if (pub.trump) extras.push(el("div", { class: "trump" }, el("span", { text: `${t("trump")}: ` }), card(pub.trump)));
  if (pub.stock_size !== undefined) extras.push(el("p", { text: t("stock", { n: pub.stock_size }) }));
  $("extras").replaceChildren(...extras);
}

function renderScore(frame) {
  const head = el("thead", {}, el("tr", {}, el("td", {}),
    el("th", { scope: "col", class: "num", text: t("people") }), el("th", { scope: "col", class: "num", text: t("ai") })));
  const rows = Object.entries(frame.score).map(([k, pair]) => {
    const [p, a] = sides(pair);
    return el("tr", {}, el("th", { scope: "row", text: scoreName(k) }), el("td", { class: "num", text: String(p) }),
      el("td", { class: "num", text: String(a) }));
  });
  $("score").replaceChildren(head, el("tbody", {}, ...rows));
}

function renderEnd(frame) {
  const last = at === game.frames.length - 1;
  const box = $("deal-end");
  box.hidden = !(frame.deal_result || last);
  if (last) {
    const r = game.result;
    const verdict = r.ai === "win" ? t("ai_won") : r.ai === "loss" ? t("people_won") : t("drawn");
    box.textContent = `${t("game_over", { people: r.points.people, ai: r.points.ai })} ${verdict}`;
  } else if (frame.deal_result) {
    const [p, a] = sides(frame.deal_result.points);
    box.textContent = t("deal_over", { n: frame.deal, people: p, ai: a });
  }
}

function show(i) {
  at = Math.max(0, Math.min(game.frames.length - 1, i));
  const frame = game.frames[at];
  $("slider").value = String(at);
  $("position").textContent = t("move_n", { n: frame.n, total: game.frames[game.frames.length - 1].n });
  $("move").textContent = moveText(frame);
  renderSeats(frame);
  renderMiddle(frame);
  renderScore(frame);
  renderEnd(frame);
  $("first").disabled = $("prev").disabled = at === 0;
  $("last").disabled = $("next").disabled = at === game.frames.length - 1;
  if (at === game.frames.length - 1) stop();
}

function stop() {
  if (timer) clearInterval(timer);
  timer = null;
  $("play").textContent = t("play");
}
function playPause() {
  if (timer) { stop(); return; }
  if (at === game.frames.length - 1) show(0);
  timer = setInterval(() => show(at + 1), 900);
  $("play").textContent = t("pause");
}

function render() {
  if (!game) return;
  const when = new Date(game.finished_at);
  $("about-game").textContent = `${gameLabel(game)} · ${aiName(game.ai)} · ` +
    t("played_at", { date: isNaN(when) ? game.finished_at : when.toLocaleString(app.lang) });
  document.title = `${t("replay_title")}: ${t(`games.${game.game}`)}`;
  if (timer) $("play").textContent = t("pause");
  show(at);
}

function wire() {
  $("first").addEventListener("click", () => { stop(); show(0); });
  $("prev").addEventListener("click", () => { stop(); show(at - 1); });
  $("next").addEventListener("click", () => { stop(); show(at + 1); });
  $("last").addEventListener("click", () => { stop(); show(game.frames.length - 1); });
  $("play").addEventListener("click", playPause);
  $("slider").addEventListener("input", () => { stop(); show(Number($("slider").value)); });
  document.addEventListener("keydown", (e) => {
    if (!game || e.target.closest("select, input")) return;
    const to = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: game.frames.length - 1 }[e.key];
    if (to !== undefined) { e.preventDefault(); stop(); show(to); }
  });
}

async function start() {
  await setupLanguage([["/stats", "to_stats"], ["/", "to_table"]], render);
  const id = new URLSearchParams(location.search).get("table");
  $("status").textContent = t("loading");
  try {
    if (!id) throw Object.assign(new Error("no table"), { status: 404 });
    game = await getJSON(`/v1/stats/games/${encodeURIComponent(id)}`);
    $("status").textContent = "";
    $("slider").max = String(game.frames.length - 1);
    $("game").hidden = false;
    wire();
    render();
  } catch (e) {
    $("status").textContent = e.status === 404 ? t("not_found") : t("error", { detail: e.message });
  }
  document.body.dataset.ready = "1";
}

start();
