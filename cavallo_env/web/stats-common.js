// What /stats and /replay share: the language (as the table page picks it), the words, DOM helpers,
// and the cards: the table page's SVG faces (cards.js) where the page loads them, else text cards
// (rank and suit sign); either named in the page's language for screen readers.
// The words are web/i18n/stats-<lang>.json; card, suit and score names are read from the table's
// web/i18n/<lang>.json (read only: one place for them).

export const $ = (id) => document.getElementById(id);
export const app = { T: {}, table: {}, lang: "en", languages: ["en"] };
const PIPS = { coins: "●", cups: "▽", swords: "⚔", clubs: "♣", hearts: "♥", diamonds: "♦", spades: "♠" };

export async function getJSON(url) {
  const r = await fetch(url, { headers: { Accept: "application/json" } });
  let body = null;
  try { body = await r.json(); } catch (e) { body = null; }
  if (!r.ok) {
    const err = new Error((body && typeof body.detail === "string" && body.detail) || `HTTP ${r.status}`);
    err.status = r.status;
    throw err;
  }
  return body;
}

function lookup(words, key) {
  let v = words;
  for (const part of key.split(".")) v = v && typeof v === "object" ? v[part] : undefined;
  return v;
}

// the word of `key` ("result.win") with its {name}s filled in; the key itself when missing
export function t(key, vars = {}) {
  const v = lookup(app.T, key);
  let s = typeof v === "string" ? v : key;
  for (const [k, x] of Object.entries(vars)) s = s.split(`{${k}}`).join(String(x));
  return s;
}
function tableWord(key, fallback) {
  const v = lookup(app.table, key);
  return typeof v === "string" ? v : fallback;
}

// an element: attrs "text", "class", "on<event>" (a listener), or attributes (true: present; null/false: absent)
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "text" || k === "class") e[k === "text" ? "textContent" : "className"] = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : v);
  }
  e.append(...children.filter((c) => c !== null && c !== undefined));
  return e;
}

// numbers as the page's language writes them: 62.5% / 62,5 %, 1.50 / 1,50
export const pct = (x) => new Intl.NumberFormat(app.lang, { style: "percent", minimumFractionDigits: 1,
  maximumFractionDigits: 1 }).format(x);
export const num = (x) => new Intl.NumberFormat(app.lang, { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(x);
export const aiName = (spec) => tableWord(`ai_names.${spec}`, spec);
export const scoreName = (key) => tableWord(`bonus.${key}`, key);

// "Scopa (Milanesi, matches to 11)": a line's game in the page's language
export function gameLabel(line) {
  const parts = [t(`decks.${line.deck}`)];
  if (line.options && line.options.match) parts.push(t("match_to_11"));
  return `${t(`games.${line.game}`)} (${parts.join(", ")})`;
}

function parseCard(name) {
  const i = name.lastIndexOf("-");
  return { rank: name.slice(0, i), suit: name.slice(i + 1) };
}
export function cardName(name) {
  const c = parseCard(name);
  const rank = tableWord(`rank.${c.rank}`, c.rank), suit = tableWord(`suit.${c.suit}`, c.suit);
  return tableWord("card", "{rank} of {suit}").split("{rank}").join(rank).split("{suit}").join(suit);
}
// the table page's SVG card faces (cards.js, a classic script defining CARD_ART) when the page loaded it,
// else a text card: the rank and the suit's sign
const ART = typeof CARD_ART !== "undefined" ? CARD_ART : null;  // eslint-disable-line no-undef
let sprite = false;
export function cardEl(name, deck) {
  const c = parseCard(name);
  const attrs = { role: "img", "aria-label": cardName(name), title: cardName(name), "data-card": name };
  if (ART && deck) {
    if (!sprite) { document.body.prepend(ART.sprite()); sprite = true; }
    const e = el("span", { class: `card svg suit-${c.suit}`, ...attrs });
    e.innerHTML = ART.face(name, deck);
    return e;
  }
  return el("span", { class: `card text suit-${c.suit}`, ...attrs },
    el("span", { class: "rank", "aria-hidden": "true", text: c.rank }),
    el("span", { class: "pip", "aria-hidden": "true", text: PIPS[c.suit] || "?" }));
}

async function loadLanguage(lang) {
  const [T, table] = await Promise.all([getJSON(`/static/i18n/stats-${lang}.json`),
    getJSON(`/static/i18n/${lang}.json`).catch(() => ({}))]);
  app.T = T; app.table = table; app.lang = lang;
  document.documentElement.lang = lang;
  for (const e of document.querySelectorAll("[data-i18n]")) e.textContent = t(e.dataset.i18n);
  localStorage.setItem("cavallo.lang", lang);
}

// the header's links (`links`: [href, word key]) and its language menu, after the page's title
function navigation(links) {
  const nav = el("nav", { class: "bar-tools" },
    ...links.map(([href, key]) => el("a", { href, "data-i18n": key, text: key })),
    el("label", {}, el("span", { "data-i18n": "language", text: "Language" }), " ", el("select", { id: "lang" })));
  document.querySelector("header.bar").append(nav);
}

// the page's language: ?lang=, else the one chosen at the table (localStorage), else the browser's, else English;
// the header's menu (made here, beside `links`) switches it and calls `onChange`
export async function setupLanguage(links, onChange) {
  navigation(links);
  try { app.languages = (await getJSON("/v1/games")).languages || ["en"]; } catch (e) { app.languages = ["en"]; }
  const asked = new URLSearchParams(location.search).get("lang");
  const pref = [asked, localStorage.getItem("cavallo.lang"), (navigator.language || "en").slice(0, 2)]
    .find((code) => code && app.languages.includes(code));
  await loadLanguage(pref || "en");
  const sel = $("lang");
  sel.replaceChildren(...app.languages.map((code) => el("option", { value: code, text: code })));
  sel.value = app.lang;
  await Promise.all(app.languages.map(async (code) => {
    const T = code === app.lang ? app.T : await getJSON(`/static/i18n/stats-${code}.json`).catch(() => ({}));
    sel.querySelector(`option[value="${code}"]`).textContent = T.lang_name || code;
  }));
  sel.addEventListener("change", async () => { await loadLanguage(sel.value); onChange(); });
}
