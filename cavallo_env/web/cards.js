// The card faces and the back, drawn as SVG by this page (no image files): the
// Italian suits of the Bresciane (coins, cups, swords, clubs, Fante,
// Cavallo, Re) and the French suits of the Milanesi (A-7, J, Q, K). The suit signs
// and the court figures are <symbol>s in one hidden sprite, reused by every card.
"use strict";

const CARD_ART = (() => {
  const NS = "http://www.w3.org/2000/svg";
  // colour of the sign (fill, outline) and of the corner index (dark enough on white)
  const SUIT = {
    coins: { fill: "#e8b21c", line: "#7a5200", ink: "#7a5200" },
    cups: { fill: "#c62828", line: "#6d1010", ink: "#a31515" },
    swords: { fill: "#1f4e9a", line: "#0e2a57", ink: "#1f4e9a" },
    clubs: { fill: "#2e7d32", line: "#173f19", ink: "#1f6024" },
    hearts: { fill: "#c8102e", line: "#7a0a1c", ink: "#b00d27" },
    diamonds: { fill: "#c8102e", line: "#7a0a1c", ink: "#b00d27" },
    spades: { fill: "#161616", line: "#000", ink: "#111" },
    fclubs: { fill: "#161616", line: "#000", ink: "#111" },
  };
  const SKIN = "#f3d2b3", GOLD = "#d9a520", DARK = "#2a2a2a";

  // the suit signs, each in a 20 x 20 box
  const SIGNS = {
    coins: `<circle cx="10" cy="10" r="9" fill="${SUIT.coins.fill}" stroke="${SUIT.coins.line}" stroke-width="1.3"/>
      <circle cx="10" cy="10" r="5.6" fill="none" stroke="${SUIT.coins.line}" stroke-width="1"/>
      <path d="M10 5.8 L11.3 8.7 L14.2 10 L11.3 11.3 L10 14.2 L8.7 11.3 L5.8 10 L8.7 8.7Z" fill="${SUIT.coins.line}"/>`,
    cups: `<path d="M3 2.5 H17 C17 8.5 14 10.8 11.2 11.2 V14.6 C13.5 15 15.2 16 15.4 18.4 H4.6 C4.8 16 6.5 15 8.8 14.6 V11.2
      C6 10.8 3 8.5 3 2.5Z" fill="${SUIT.cups.fill}" stroke="${SUIT.cups.line}" stroke-width="1"/>
      <path d="M3.4 4.2 H16.6" stroke="${GOLD}" stroke-width="1.6"/>`,
    swords: `<path d="M10 0.6 L11.6 3.6 V13 H8.4 V3.6Z" fill="#e4e9ef" stroke="${SUIT.swords.line}" stroke-width="0.9"/>
      <rect x="4.2" y="12.6" width="11.6" height="2.2" rx="1" fill="${SUIT.swords.fill}" stroke="${SUIT.swords.line}" stroke-width="0.6"/>
      <rect x="8.9" y="14.6" width="2.2" height="3.4" fill="${SUIT.swords.fill}"/>
      <circle cx="10" cy="18.6" r="1.3" fill="${GOLD}" stroke="${SUIT.swords.line}" stroke-width="0.5"/>`,
    clubs: `<path d="M12.6 1.2 C15.6 1.6 16.4 4.6 15.2 7 L9.4 18.6 C8.8 19.7 7 19.3 6.8 18 L7.4 16.8 C6.2 16.4 5.9 15 6.8 14.2
      L7.9 12 C6.8 11.4 6.8 10 7.8 9.4 L9 7 C8.2 6.2 8.4 4.8 9.6 4.4 L10 3.4 C10.4 1.9 11.5 1.1 12.6 1.2Z"
      fill="${SUIT.clubs.fill}" stroke="${SUIT.clubs.line}" stroke-width="1"/>
      <path d="M12.4 3.6 L9.6 9.4 M11.4 9.2 L9 14.2" stroke="#8fcf8f" stroke-width="0.9" fill="none"/>`,
    hearts: `<path d="M10 18.2 C3 12.6 0.8 9.2 2.2 5.6 C3.6 2.2 8 1.8 10 5.2 C12 1.8 16.4 2.2 17.8 5.6 C19.2 9.2 17 12.6 10 18.2Z"
      fill="${SUIT.hearts.fill}"/>`,
    diamonds: `<path d="M10 1 L17.2 10 L10 19 L2.8 10Z" fill="${SUIT.diamonds.fill}"/>`,
    spades: `<path d="M10 1.6 C17 7.4 19.2 10.6 17.8 13.6 C16.6 16.2 13 16.4 11 13.8 L12.6 18.6 H7.4 L9 13.8 C7 16.4 3.4 16.2 2.2 13.6
      C0.8 10.6 3 7.4 10 1.6Z" fill="${SUIT.spades.fill}"/>`,
    fclubs: `<circle cx="10" cy="5.6" r="4.2" fill="#161616"/><circle cx="5.2" cy="11.2" r="4.2" fill="#161616"/>
      <circle cx="14.8" cy="11.2" r="4.2" fill="#161616"/><path d="M9.2 10 L7.6 18.8 H12.4 L10.8 10Z" fill="#161616"/>`,
  };

  // the court figures, each in a 56 x 108 box; the robe is currentColor (the suit's colour)
  const HEAD = `<circle cx="28" cy="38" r="9" fill="${SKIN}" stroke="${DARK}" stroke-width="1.2"/>
    <circle cx="24.8" cy="37" r="1.1" fill="${DARK}"/><circle cx="31.2" cy="37" r="1.1" fill="${DARK}"/>
    <path d="M25 42.4 Q28 44.4 31 42.4" stroke="${DARK}" stroke-width="1" fill="none"/>`;
  const ROBE = `<path d="M7 108 L13 58 Q28 47 43 58 L49 108Z" fill="currentColor" stroke="${DARK}" stroke-width="1.2"/>
    <path d="M20 52 L28 64 L36 52" fill="#fff" stroke="${DARK}" stroke-width="1"/>
    <rect x="12" y="78" width="32" height="5" fill="${GOLD}" stroke="${DARK}" stroke-width="0.8"/>`;
  const FIGURES = {
    king: `${ROBE}${HEAD}
      <path d="M19.5 41 Q28 58 36.5 41 Q28 47.5 19.5 41Z" fill="#7a4a20" stroke="${DARK}" stroke-width="0.8"/>
      <path d="M18 31 L18 18 L23 24 L28 15 L33 24 L38 18 L38 31Z" fill="${GOLD}" stroke="${DARK}" stroke-width="1.1"/>
      <circle cx="28" cy="27" r="1.6" fill="#c62828"/>
      <path d="M46 104 L46 50" stroke="${DARK}" stroke-width="2.2"/><circle cx="46" cy="48" r="3" fill="${GOLD}" stroke="${DARK}"/>`,
    queen: `<path d="M16.5 50 Q14 22 28 22 Q42 22 39.5 50 Q34 45 28 46 Q22 45 16.5 50Z" fill="#6b3b1a"/>${ROBE}${HEAD}
      <path d="M20 28 L22 21 L25 25 L28 19 L31 25 L34 21 L36 28Z" fill="${GOLD}" stroke="${DARK}" stroke-width="1"/>
      <path d="M20 54 Q28 62 36 54" stroke="${GOLD}" stroke-width="1.8" fill="none"/>
      <circle cx="11" cy="70" r="4" fill="#e57373" stroke="${DARK}" stroke-width="0.8"/>
      <path d="M11 74 L13 96" stroke="#2e7d32" stroke-width="1.6"/>`,
    jack: `${ROBE}${HEAD}
      <path d="M17.5 33 Q17 21 29 21 Q40 21 39.5 32 Z" fill="currentColor" stroke="${DARK}" stroke-width="1.1"/>
      <path d="M16 33 H41" stroke="${DARK}" stroke-width="2"/>
      <path d="M37 24 Q50 10 50 22 Q46 21 39 27Z" fill="${GOLD}" stroke="${DARK}" stroke-width="0.8"/>
      <path d="M10 106 L10 56" stroke="${DARK}" stroke-width="2.2"/>
      <path d="M10 56 L6 48 L10 44 L14 48Z" fill="#9aa4ae" stroke="${DARK}" stroke-width="0.8"/>`,
    knight: `<path d="M6 108 L8 88 Q2 74 10 62 L30 44 Q36 36 44 40 L53 52 Q55 58 50 60 L44 58 Q40 60 40 68 Q44 80 46 108Z"
      fill="#9b6a3c" stroke="${DARK}" stroke-width="1.3"/>
      <path d="M30 44 Q18 52 10 62 Q8 54 16 46 Q22 40 30 44Z" fill="#4a2c14"/>
      <circle cx="42" cy="47" r="1.6" fill="${DARK}"/><path d="M50 55 L53 53" stroke="${DARK}" stroke-width="1"/>
      <path d="M40 40 L42 33 L45 40" fill="#9b6a3c" stroke="${DARK}" stroke-width="1"/>
      <path d="M12 70 L14 40 Q21 34 28 40 L30 62Z" fill="currentColor" stroke="${DARK}" stroke-width="1.1"/>
      <circle cx="21" cy="27" r="7.4" fill="${SKIN}" stroke="${DARK}" stroke-width="1.1"/>
      <circle cx="23.6" cy="26.4" r="0.9" fill="${DARK}"/>
      <path d="M13 25 Q14 15 22 15 Q30 15 29.5 24 Z" fill="currentColor" stroke="${DARK}" stroke-width="1"/>
      <path d="M28 18 Q38 6 36 18" fill="${GOLD}" stroke="${DARK}" stroke-width="0.7"/>
      <path d="M30 72 L40 84 L38 96" stroke="currentColor" stroke-width="4" fill="none" stroke-linecap="round"/>`,
  };
  const COURT = { F: "jack", J: "jack", C: "knight", Q: "queen", R: "king", K: "king" };

  // where the signs of a numeral go, in the 100 x 140 card
  const L = 34, R = 66, M = 50;
  const PIPS = {
    2: [[M, 32], [M, 108]],
    3: [[M, 32], [M, 70], [M, 108]],
    4: [[L, 32], [R, 32], [L, 108], [R, 108]],
    6: [[L, 32], [R, 32], [L, 70], [R, 70], [L, 108], [R, 108]],
    9: [[L, 30], [R, 30], [L, 56], [R, 56], [L, 84], [R, 84], [L, 110], [R, 110], [M, 70]],
  };
  PIPS[5] = PIPS[4].concat([[M, 70]]);
  PIPS[7] = PIPS[6].concat([[M, 51]]);
  PIPS[8] = PIPS[6].concat([[M, 51], [M, 89]]);
  PIPS[10] = PIPS[9].slice(0, 8).concat([[M, 43], [M, 97]]);

  const signId = (suit, deck) => "sign-" + (suit === "clubs" && deck === "milanesi" ? "fclubs" : suit);
  const colours = (suit, deck) => SUIT[suit === "clubs" && deck === "milanesi" ? "fclubs" : suit];

  function sprite() {
    const symbols = Object.entries(SIGNS).map(([k, body]) => `<symbol id="sign-${k}" viewBox="0 0 20 20">${body}</symbol>`)
      .concat(Object.entries(FIGURES).map(([k, body]) => `<symbol id="fig-${k}" viewBox="0 0 56 108">${body}</symbol>`));
    const back = `<pattern id="back-weave" width="10" height="10" patternUnits="userSpaceOnUse">
      <rect width="10" height="10" fill="#7b1d2a"/><path d="M5 0.5 L9.5 5 L5 9.5 L0.5 5Z" fill="#9a2a3b"/>
      <circle cx="5" cy="5" r="1.1" fill="#e9cf8f"/></pattern>`;
    const svg = document.createElementNS(NS, "svg");
    svg.setAttribute("aria-hidden", "true");
    svg.setAttribute("style", "position:absolute;width:0;height:0;overflow:hidden");
    svg.innerHTML = `<defs>${back}</defs>${symbols.join("")}`;
    return svg;
  }

  function use(id, x, y, size, extra = "") {
    return `<use href="#${id}" x="${x - size / 2}" y="${y - size / 2}" width="${size}" height="${size}"${extra}/>`;
  }

  function index(rank, suit, deck) {
    const c = colours(suit, deck);
    const fit = rank.length > 1 ? ' textLength="19" lengthAdjust="spacingAndGlyphs"' : "";
    const one = `<text x="12.5" y="25" text-anchor="middle" font-size="25" font-weight="700" fill="${c.ink}"
      font-family="DejaVu Sans, Arial, sans-serif"${fit}>${rank}</text>${use(signId(suit, deck), 12.5, 37, 15)}`;
    return `<g class="index">${one}</g><g transform="rotate(180 50 70)">${one}</g>`;
  }

  function middle(rank, suit, deck) {
    const sign = signId(suit, deck);
    if (COURT[rank]) {
      const c = colours(suit, deck);
      return `<rect x="23" y="15" width="54" height="110" rx="4" fill="#fff7e2" stroke="${c.ink}" stroke-width="1.2"/>
        <svg x="23" y="16" width="54" height="108" viewBox="0 0 56 108" color="${c.fill}">
        <use href="#fig-${COURT[rank]}" width="56" height="108"/></svg>${use(sign, 66, 27, 15)}`;
    }
    if (rank === "A") return use(sign, 50, 70, 48);
    return (PIPS[rank] || []).map(([x, y]) =>
      use(sign, x, y, rank === "9" || rank === "10" ? 18 : 21, y > 70 ? ` transform="rotate(180 ${x} ${y})"` : "")).join("");
  }

  const cache = new Map();
  // the face of card "rank-suit" of a deck as SVG markup (100 x 140)
  function face(name, deck) {
    const key = deck + ":" + name;
    if (!cache.has(key)) {
      const i = name.lastIndexOf("-");
      const rank = name.slice(0, i), suit = name.slice(i + 1);
      cache.set(key, `<svg class="face" viewBox="0 0 100 140" aria-hidden="true" focusable="false">
        <rect x="1" y="1" width="98" height="138" rx="8" class="card-paper"/>${middle(rank, suit, deck)}${index(rank, suit, deck)}</svg>`);
    }
    return cache.get(key);
  }

  // the back of every card: the same for every card, it tells nothing
  const BACK = `<svg class="face" viewBox="0 0 100 140" aria-hidden="true" focusable="false">
    <rect x="1" y="1" width="98" height="138" rx="8" fill="#fffdf7" stroke="#5a1520" stroke-width="2"/>
    <rect x="7" y="7" width="86" height="126" rx="5" fill="url(#back-weave)" stroke="#e9cf8f" stroke-width="2"/>
    <circle cx="50" cy="70" r="15" fill="#7b1d2a" stroke="#e9cf8f" stroke-width="2"/>
    <path d="M50 58 L53.5 66.5 L62 70 L53.5 73.5 L50 82 L46.5 73.5 L38 70 L46.5 66.5Z" fill="#e9cf8f"/></svg>`;
  const back = () => BACK;

  return { sprite, face, back, signId };
})();
