// The hand page: each server-written tile (<span class="tile" data-tile="5m">五万</span>)
// is drawn as the live table draws it (static/table/tiles.js), keeping its classes.

import { tileEl } from "../table/tiles.js";

for (const span of document.querySelectorAll(".final-hands span.tile[data-tile], .row span.tile[data-tile]")) {
  const extra = [...span.classList].filter((c) => c !== "tile").join(" ");
  span.replaceWith(tileEl(span.dataset.tile, extra));
}
