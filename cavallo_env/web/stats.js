// /stats: the AI against people -- the table of every finished game per game, deck and AI, its chart,
// and this browser's player's own games with a link to replay each (GET /v1/stats; docs/people.md).
import { $, app, aiName, el, gameLabel, getJSON, num, pct, setupLanguage, t } from "/static/stats-common.js";

// the browser's anonymous player id: ?player=, else the one the table page keeps (table.js, KEYS.player)
const PLAYER_KEY = "cavallo.player";
const SVG = "http://www.w3.org/2000/svg";
let data = null;

function playerId() {
  const asked = new URLSearchParams(location.search).get("player");
  return asked || localStorage.getItem(PLAYER_KEY) || null;
}

function figuresTable(table, lines) {
  const heads = ["col_game", "col_ai", "col_games", "col_wdl", "col_score", "col_interval", "col_ai_points",
    "col_people_points"];
  const head = el("thead", {}, el("tr", {}, ...heads.map((k) => el("th", { scope: "col", text: t(k) }))));
  const rows = lines.map((x) => el("tr", {},
    el("th", { scope: "row", text: gameLabel(x) }), el("td", { text: aiName(x.ai) }),
    el("td", { class: "num", text: String(x.games) }),
    el("td", { class: "num", text: `${x.wins} / ${x.draws} / ${x.losses}` }),
    el("td", { class: "num", text: pct(x.score) }),
    el("td", { class: "num", text: `${pct(x.score_ci[0])} – ${pct(x.score_ci[1])}` }),
    el("td", { class: "num", text: num(x.ai_points) }),
    el("td", { class: "num", text: num(x.people_points) })));
  table.replaceChildren(head, el("tbody", {}, ...rows));
}

function svg(tag, attrs, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

// one row per line: the AI's score as a dot, its 95% interval as a bar, 50% (even) dashed;
// each row is labelled with its game (deck, match) and, below it, its AI
function chart(box, lines) {
  box.replaceChildren();
  if (!lines.length) return;
  const W = 720, left = 300, right = 24, row = 38, top = 26, H = top + row * lines.length + 6;
  const x = (p) => left + p * (W - left - right);
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": t("chart_label"), class: "score-chart" });
  s.append(svg("title", {}, t("chart_label")));
  for (const p of [0, 0.25, 0.5, 0.75, 1]) {
    s.append(svg("line", { x1: x(p), x2: x(p), y1: top - 6, y2: H - 4, class: p === 0.5 ? "even" : "grid" }));
    s.append(svg("text", { x: x(p), y: top - 10, class: "tick", "text-anchor": "middle" },
      new Intl.NumberFormat(app.lang, { style: "percent" }).format(p)));
  }
  lines.forEach((line, i) => {
    const y = top + row * i + row / 2;
    const g = svg("g", { class: "line" });
    g.append(svg("title", {}, `${gameLabel(line)} · ${aiName(line.ai)}: ${pct(line.score)} ` +
      `(${pct(line.score_ci[0])} – ${pct(line.score_ci[1])}), ${t("col_games")}: ${line.games}`));
    g.append(svg("text", { x: left - 10, y: y - 2, "text-anchor": "end", class: "label" }, gameLabel(line)));
    g.append(svg("text", { x: left - 10, y: y + 12, "text-anchor": "end", class: "ai" }, aiName(line.ai)));
    g.append(svg("line", { x1: x(line.score_ci[0]), x2: x(line.score_ci[1]), y1: y, y2: y, class: "interval" }));
    g.append(svg("circle", { cx: x(line.score), cy: y, r: 5, class: "score" }));
    s.append(g);
  });
  box.append(s);
}

function history(list, games) {
  list.replaceChildren(...games.map((h) => {
    const when = new Date(h.finished_at);
    const date = isNaN(when) ? h.finished_at : when.toLocaleString(app.lang);
    return el("li", { class: `result-${h.result}` },
      el("span", { class: "when", text: date }), " ",
      el("span", { class: "what", text: `${gameLabel(h)} · ${aiName(h.ai)}` }), " ",
      el("strong", { text: `${t(`result.${h.result}`)} ${h.points[0]} – ${h.points[1]}` }), " ",
      el("a", { href: `/replay?table=${encodeURIComponent(h.table_id)}`, text: t("replay") }));
  }));
}

function render() {
  if (!data) return;
  $("all-empty").hidden = data.games > 0;
  figuresTable($("all-table"), data.lines);
  $("all-table").hidden = !data.lines.length;
  chart($("all-chart"), data.lines);
  const extra = [];
  if (!data.complete) extra.push(t("partial", { n: data.limit }));
  if (data.skipped) extra.push(t("skipped", { n: data.skipped }));
  $("all-extra").textContent = extra.join(" ");
  const mine = data.player || { games: 0, lines: [], history: [] };
  $("mine-empty").hidden = mine.games > 0;
  figuresTable($("mine-table"), mine.lines);
  $("mine-table").hidden = !mine.lines.length;
  chart($("mine-chart"), mine.lines);
  $("history-title").hidden = !mine.history.length;
  history($("history"), mine.history);
  document.title = t("page_title");
}

async function start() {
  await setupLanguage([["/", "to_table"]], render);
  $("status").textContent = t("loading");
  const pid = playerId();
  try {
    data = await getJSON(`/v1/stats${pid ? `?player_id=${encodeURIComponent(pid)}` : ""}`)
      .catch((e) => { if (pid && e.status === 422) return getJSON("/v1/stats"); throw e; });  // an id it does not take
    $("status").textContent = "";
  } catch (e) {
    $("status").textContent = t("error", { detail: e.message });
  }
  render();
  document.body.dataset.ready = "1";
}

start();
