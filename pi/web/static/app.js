// Live pages without a build step: an EventSource per page replaces the live region with
// the HTML the server rendered for the new version, and updates a few controls.
(function () {
  "use strict";
  var body = document.body;
  var ledWords = {};
  var wordsEl = document.getElementById("led-words");
  if (wordsEl) { try { ledWords = JSON.parse(wordsEl.textContent); } catch (e) { ledWords = {}; } }

  var lang = document.documentElement.lang;
  function words(text) { return (text && (text[lang] || text.en)) || ""; }

  // Every answer is shown where the eye is: in a toast at the bottom of the screen (where the
  // thumb is) and, for a form or a button, right beside it.
  var toast = document.getElementById("toast");
  function showToast(text, kind) {
    if (!toast || !text) { return; }
    toast.textContent = text;
    toast.className = "toast " + (kind || "");
    toast.hidden = false;
    clearTimeout(showToast.timer);
    showToast.timer = setTimeout(function () { toast.hidden = true; }, kind === "error" ? 7000 : 2500);
  }
  function showError(error, near) {
    if (!error) { return; }
    showToast(words(error), "error");
    if (near) {
      var place = near.querySelector(".form-error");
      if (!place) {
        place = document.createElement("p");
        place.className = "form-error notice error";
        place.setAttribute("role", "alert");
        near.appendChild(place);
      }
      place.textContent = words(error);
      place.hidden = false;
    }
  }
  var offline = { en: "The table did not answer; check the connection.", ja: "テーブルから応答がありません。接続を確認してください。" };

  var csrfMeta = document.querySelector("meta[name=csrf]");
  var csrf = csrfMeta ? csrfMeta.content : "";

  // A page that must load again (its forms changed) first lets its own requests be answered
  // and a held seat button be let go: a reload would cut them off, and with them a refusal's
  // reason or the button's release. An answer that never comes (the Wi-Fi dropped) holds the
  // page back 10 s at most. The last message shown comes back on the reloaded page; a page
  // leaving for a plain form's answer is not reloaded under it.
  var sending = 0;
  var holding = 0;
  var reloadWanted = false;
  var reloadTimer = null;
  var leaving = false;
  var KEPT = "dicetable-toast";
  function reloadNow() {
    if (leaving) { return; }
    leaving = true;
    if (toast && !toast.hidden) {
      try { sessionStorage.setItem(KEPT, JSON.stringify({ text: toast.textContent, kind: toast.className })); } catch (e) { /* private mode */ }
    }
    body.inert = true;  // a tap now would be lost with the old page
    window.location.reload();
  }
  function reload() {
    reloadWanted = true;
    if (sending === 0 && holding === 0) { reloadNow(); return; }
    if (!reloadTimer) {
      reloadTimer = setTimeout(function () {
        reloadTimer = null;
        if (holding > 0) { reload(); } else { reloadNow(); }
      }, 10000);
    }
  }
  function settled() {
    // after the callers' own handlers, so that their message is the one kept; a finger put
    // down on a seat button in between is waited for (its release settles again)
    if (reloadWanted && sending === 0 && holding === 0) {
      setTimeout(function () { if (sending === 0 && holding === 0) { reloadNow(); } }, 0);
    }
  }
  try {
    var kept = JSON.parse(sessionStorage.getItem(KEPT) || "null");
    sessionStorage.removeItem(KEPT);
    if (kept) { showToast(kept.text, String(kept.kind).replace("toast", "").trim()); }
  } catch (e) { /* nothing kept */ }

  function send(url, data, near) {
    sending += 1;
    return fetch(url, { method: "POST", body: data, headers: { "Accept": "application/json", "X-CSRF-Token": csrf }, credentials: "same-origin" })
      .then(function (response) {
        return response.json().then(function (answer) {
          if (!response.ok || answer.ok === false) { showError(answer.error || offline, near); return false; }
          if (answer.message) { showToast(words(answer.message), "ok"); }
          return true;
        }, function () { if (!response.ok) { showError(offline, near); } return response.ok; });
      }, function () { showError(offline, near); return false; })
      .then(function (ok) { sending -= 1; settled(); return ok; });
  }
  function post(url, near) { return send(url, null, near); }

  // Forms are sent without leaving the page, so a refusal keeps what was typed and shows
  // beside the form. A form with data-confirm asks first and says what will be lost.
  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (!form.matches || !form.matches("form.input-form, form[data-async], form[data-confirm]")) {
      if (!e.defaultPrevented) { leaving = true; }  // a plain post: the page follows it
      return;
    }
    if (form.dataset.confirm) {
      if (!window.confirm(form.dataset.confirm)) { e.preventDefault(); return; }
      var flag = form.querySelector("input[name=confirm]");
      if (!flag) { flag = document.createElement("input"); flag.type = "hidden"; flag.name = "confirm"; form.appendChild(flag); }
      flag.value = "1";
      if (!form.matches("form.input-form, form[data-async]")) { leaving = true; return; }
    }
    e.preventDefault();
    var submitter = e.submitter;
    var url = (submitter && submitter.getAttribute("formaction")) || form.getAttribute("action");
    var old = form.querySelector(".form-error");
    if (old) { old.hidden = true; }
    if (submitter) { submitter.disabled = true; }
    send(url, new FormData(form), form).then(function (ok) {
      if (submitter) { submitter.disabled = false; }
      if (ok) {
        showToast(words({ en: "Sent.", ja: "送信しました。" }), "ok");
        if (form.dataset.reload !== undefined) { reload(); }
      }
    });
  });

  // ------------------------------------------------------------------ pads
  // Dice, lists of numbers and layouts are tapped, never typed: each pad writes the text
  // the server reads ("red 3, blue 5", "6 2 5 1", "3 5 d10", JSON rows) into its field's
  // own text box, which is shown only where this script does not run.
  var COLOUR_JA = { red: "赤", orange: "オレンジ", yellow: "黄", green: "緑", blue: "青", purple: "紫", pink: "ピンク",
    white: "白", black: "黒", clear: "透明", grey: "灰色", gray: "灰色", brown: "茶" };
  function colourName(c) { return lang === "ja" ? (COLOUR_JA[c] || c) : c; }
  // a kind of die in the page's words, as the games' glossaries name them (10面体, d10)
  function sidesName(sides) { return lang === "ja" ? sides + "面体" : "d" + sides; }
  var UI = {
    undo: { en: "Remove", ja: "1つ消す" }, clear: { en: "Remove all", ja: "全部消す" },
    colour: { en: "Colour", ja: "色" }, empty: { en: "nothing yet", ja: "まだありません" },
    place: { en: "Tap a die, then its place; tap a place to empty it.", ja: "ダイスをタップしてから置く場所をタップ。置いた場所をタップすると外せます。" },
    face: { en: "Face", ja: "目" }
  };
  function el(tag, cls, text) { var e = document.createElement(tag); if (cls) { e.className = cls; } if (text !== undefined) { e.textContent = text; } return e; }
  function tapButton(label, cls, onTap, aria) {
    var b = el("button", "pad-key " + (cls || ""), label);
    b.type = "button";
    if (aria) { b.setAttribute("aria-label", aria); }
    b.addEventListener("click", onTap);
    return b;
  }
  function facesOf(sides) {
    var out = [];
    var lo = sides === 10 ? 0 : 1, hi = sides === 10 ? 9 : sides;
    for (var v = lo; v <= hi; v++) { out.push(v); }
    return out;
  }
  function dieLabel(d) {
    // the chip's visible text ("8d10") inside the name, as a label must hold what it shows
    return colourName(d.colour || "") + " " + d.face + (d.sides && d.sides !== 6 ? "d" + d.sides : "");
  }
  function dieChip(d) {
    var chip = el("span", "die " + (d.colour || "unknown"), String(d.face));
    if (d.sides && d.sides !== 6) { chip.appendChild(el("small", "", "d" + d.sides)); }
    chip.setAttribute("aria-label", dieLabel(d));
    return chip;
  }

  function buildPad(pad) {
    var spec = JSON.parse(pad.dataset.spec);
    var kind = pad.dataset.pad, f = spec.field;
    var box = pad.parentNode.querySelector("input.typed");
    if (!box) { return; }
    box.hidden = true;
    if (kind === "layout") { return buildLayout(pad, spec, box); }
    // Dice already there (a throw to correct) start the pad; tapping one of them picks it,
    // and the next face tapped replaces its face in place.
    var items = kind === "dice" ? box.value.split(",").map(function (part) {
      var m = part.trim().match(/^([A-Za-z_-]+)\s+(\d+)(?:\s*d(\d+))?$/);
      return m ? { colour: m[1], face: Number(m[2]), sides: m[3] ? Number(m[3]) : 6 } : null;
    }).filter(Boolean) : [];
    var picked = null;
    var shown = el("p", "pad-shown");
    shown.setAttribute("aria-live", "polite");
    function write() {
      shown.textContent = "";
      if (!items.length) { shown.appendChild(el("span", "hint", words(UI.empty))); }
      items.forEach(function (it, i) {
        if (kind !== "dice") { shown.appendChild(el("span", "die white", String(it.label || it.face))); return; }
        var chip = tapButton("", "pad-die", function () { picked = picked === i ? null : i; write(); });
        chip.appendChild(dieChip(it));
        chip.setAttribute("aria-pressed", picked === i ? "true" : "false");
        chip.setAttribute("aria-label", dieLabel(it));
        shown.appendChild(chip);
      });
      if (kind === "dice") {
        box.value = items.map(function (d) { return d.colour + " " + d.face + (d.sides !== 6 ? " d" + d.sides : ""); }).join(", ");
      } else {
        box.value = items.map(function (it) { return it.face; }).join(" ");
      }
    }
    pad.appendChild(shown);
    var keys = el("div", "pad-keys");
    pad.appendChild(keys);
    if (kind === "numbers") {
      for (var v = f.min; v <= f.max; v++) {
        (function (v) { keys.appendChild(tapButton(String(v), "", function () { items.push({ face: v }); write(); })); })(v);
      }
    } else if (kind === "picked") {
      facesOf(6).forEach(function (v) { keys.appendChild(tapButton(String(v), "", function () { items.push({ face: v }); write(); })); });
      Object.keys(f.names || {}).forEach(function (sides) {
        var name = f.names[sides], label = sidesName(sides);
        keys.appendChild(tapButton(label, "", function () { items.push({ face: name, label: label }); write(); }));
      });
    } else {
      // dice: a colour and a kind of die are chosen (the ones the throw asks for), then
      // each tap on a face adds one die.
      var kinds = [];
      (spec.dice || []).forEach(function (d) {
        var colours = d.colour === "*" ? (spec.colours || ["white"]) : [d.colour];
        colours.forEach(function (c) {
          if (!kinds.some(function (k) { return k.colour === c && k.sides === (d.sides || 6); })) { kinds.push({ colour: c, sides: d.sides || 6 }); }
        });
      });
      if (!kinds.length) {
        // any dice (e.g. those picked up for a rethrow): d6 of the seats' colours, and the
        // special dice the input names (a d10, a d20)
        [6].concat(spec.sides || []).forEach(function (sides) {
          (spec.colours || ["white"]).forEach(function (c) { kinds.push({ colour: c, sides: sides }); });
        });
      }
      var current = kinds[0];
      var choose = el("div", "pad-kinds");
      var faceKeys = el("div", "pad-keys");
      function drawFaces() {
        faceKeys.textContent = "";
        facesOf(current.sides).forEach(function (v) {
          faceKeys.appendChild(tapButton(String(v), "die " + current.colour, function () {
            if (picked !== null && items[picked].sides === current.sides) { items[picked].face = v; picked = null; }
            else { items.push({ colour: current.colour, face: v, sides: current.sides }); }
            write();
          }, colourName(current.colour) + " " + v));
        });
      }
      if (kinds.length > 1) {
        kinds.forEach(function (k, i) {
          var b = tapButton(colourName(k.colour) + (k.sides !== 6 ? " " + sidesName(k.sides) : ""), "pad-kind " + k.colour, function () {
            current = k;
            choose.querySelectorAll(".pad-kind").forEach(function (x) { x.setAttribute("aria-pressed", "false"); });
            b.setAttribute("aria-pressed", "true");
            drawFaces();
          });
          b.setAttribute("aria-pressed", i === 0 ? "true" : "false");
          choose.appendChild(b);
        });
        keys.appendChild(choose);
      }
      keys.appendChild(faceKeys);
      drawFaces();
    }
    var edit = el("div", "pad-edit");
    edit.appendChild(tapButton("⌫ " + words(UI.undo), "", function () {
      if (picked !== null) { items.splice(picked, 1); picked = null; } else { items.pop(); }
      write();
    }));
    edit.appendChild(tapButton(words(UI.clear), "", function () { items = []; picked = null; write(); }));
    pad.appendChild(edit);
    write();
  }

  // A layout (dice laid flat in rows, bottom row first): tap a die of the tray (the dice
  // this seat may place, or any die from the colour and face keys), then its place.
  function buildLayout(pad, spec, box) {
    var f = spec.field;
    var rows = (f.rows || []).map(function (n) { var r = []; for (var i = 0; i < n; i++) { r.push(null); } return r; });
    var tray = (f.dice || []).map(function (d) { return Array.isArray(d) ? { colour: d[0], face: d[1] } : { colour: d.colour, face: d.face }; });
    var chosen = null;
    pad.appendChild(el("p", "hint", words(UI.place)));
    var board = el("div", "layout-board");
    var trayEl = el("div", "pad-keys layout-tray");
    pad.appendChild(board);
    pad.appendChild(trayEl);
    function write() {
      box.value = JSON.stringify(rows.map(function (row) { return row.map(function (d) { return d ? [d.colour, d.face] : null; }); }));
      board.textContent = "";
      for (var r = rows.length - 1; r >= 0; r--) {
        var line = el("div", "layout-row");
        rows[r].forEach(function (d, k) {
          var place = tapButton(d ? String(d.face) : "·", "layout-place " + (d ? "die " + d.colour : "empty"), function () {
            if (rows[this.r][this.k]) { tray.push(rows[this.r][this.k]); rows[this.r][this.k] = null; }
            else if (chosen !== null) { rows[this.r][this.k] = tray.splice(chosen, 1)[0]; chosen = null; }
            write();
          }.bind({ r: r, k: k }), d ? colourName(d.colour) + " " + d.face : "·");
          line.appendChild(place);
        });
        board.appendChild(line);
      }
      trayEl.textContent = "";
      tray.forEach(function (d, i) {
        var b = tapButton(String(d.face), "die " + d.colour, function () { chosen = chosen === i ? null : i; write(); }, colourName(d.colour) + " " + d.face);
        b.setAttribute("aria-pressed", chosen === i ? "true" : "false");
        trayEl.appendChild(b);
      });
    }
    write();
  }
  function buildPads(root) { (root || document).querySelectorAll(".pad[data-spec]").forEach(function (pad) { if (!pad.dataset.built) { pad.dataset.built = "1"; buildPad(pad); } }); }
  buildPads();

  // A board drawing names its places (data-pick): tapping one chooses it in the forms of the
  // page, in the field last touched that offers it, else the first such field still open
  // (so a tape's two ends are two taps on the board).
  var lastField = null;
  document.addEventListener("change", function (e) { var f = e.target.closest && e.target.closest("fieldset.field"); if (f) { lastField = f; } });
  document.addEventListener("click", function (e) {
    var place = e.target.closest && e.target.closest("[data-pick]");
    if (!place) { return; }
    var value = place.dataset.pick;
    var fields = [];
    document.querySelectorAll("form.input-form fieldset.field").forEach(function (f) {
      var offers = Array.prototype.some.call(f.querySelectorAll("input[type=radio], option"), function (o) { return o.value === value; });
      if (offers) { fields.push(f); }
    });
    if (!fields.length) { return; }
    function open(f) {
      var select = f.querySelector("select");
      if (select) { return select.value === "" || select.value === "null"; }
      var checked = f.querySelector("input:checked");
      return !checked || checked.value === "null";
    }
    var field = fields.indexOf(lastField) >= 0 ? lastField : (fields.filter(open)[0] || fields[0]);
    var select = field.querySelector("select");
    var shown = value;
    if (select) { select.value = value; shown = select.options[select.selectedIndex].textContent; select.dispatchEvent(new Event("change", { bubbles: true })); }
    else {
      var radio = Array.prototype.filter.call(field.querySelectorAll("input[type=radio]"), function (r) { return r.value === value; })[0];
      radio.checked = true; shown = radio.parentNode.textContent.trim();
      radio.dispatchEvent(new Event("change", { bubbles: true }));
    }
    lastField = fields.filter(function (f) { return f !== field && open(f); })[0] || null;
    showToast(field.querySelector("legend").textContent.trim() + ": " + shown, "ok");
  });

  // The host's start form shows the settings of the game chosen only, and the seats'
  // colours only for a game whose seats have colours.
  function showSettings() {
    var chosen = document.querySelector("#game-select input:checked");
    document.querySelectorAll(".settings[data-game]").forEach(function (box) {
      var on = Boolean(chosen) && box.dataset.game === chosen.value;
      box.hidden = !on;
      box.querySelectorAll("input").forEach(function (input) { input.disabled = !on; });
    });
    var colours = !chosen || chosen.dataset.colours !== "no";
    document.querySelectorAll("#start-form select.seat-colour").forEach(function (select) { select.hidden = !colours; });
  }
  document.querySelectorAll("#game-select input").forEach(function (input) { input.addEventListener("change", showSettings); });
  showSettings();

  // Steppers: − and + beside a count.
  document.addEventListener("click", function (e) {
    var step = e.target.closest && e.target.closest("button.step");
    if (!step) { return; }
    var input = step.parentNode.querySelector("input[type=number]");
    var max = input.max === "" ? 99 : Number(input.max);
    input.value = Math.max(0, Math.min(max, (Number(input.value) || 0) + Number(step.dataset.step)));
    input.dispatchEvent(new Event("change", { bubbles: true }));
  });

  // Options that carry a face (e.g. squares) are offered only where they fit the die
  // chosen in the same form.
  document.addEventListener("change", function (e) {
    var form = e.target.form;
    if (!form || !form.querySelector("input[data-face]")) { return; }
    var faces = [];
    form.querySelectorAll(".stepper input[type=number]").forEach(function (input) {
      if (Number(input.value) > 0) { faces.push(input.closest(".stepper").dataset.value); }
    });
    form.querySelectorAll("input[data-face]").forEach(function (input) {
      var fits = !faces.length || faces.indexOf(input.dataset.face) >= 0;
      input.closest("label").hidden = !fits;
      if (!fits && input.checked) { input.checked = false; }
    });
  });

  // The live camera view polls only while the table reports a working camera.
  var camera = document.getElementById("camera");
  var cameraOk = Boolean(camera && camera.dataset.ok === "yes");
  var cameraNone = document.getElementById("camera-none");  // said while there is no picture
  function showFrame(shown) {
    camera.hidden = !shown;
    if (cameraNone) { cameraNone.hidden = shown; }
  }

  function update(state) {
    lastState = null;
    body.dataset.version = state.version;
    cameraOk = Boolean(state.camera && state.camera.ok);
    if (camera && !cameraOk) { showFrame(false); }
    document.querySelectorAll("[data-led-for]").forEach(function (el) {
      var led = (state.leds || {})[el.dataset.ledFor] || "off";
      el.textContent = ledWords[led] || led;
      el.dataset.led = led;
    });
    var active = document.activeElement;
    var typing = active && (/SELECT|TEXTAREA/.test(active.tagName) ||
      (active.tagName === "INPUT" && /^(text|number|password|search)$/.test(active.type)));
    // The forms depend on what the game waits for from this page (and, on the host page,
    // on the game, a pending prompt and whether the game is over: one can end at a reveal,
    // when the host had no form before or after): when that changes, load the page again.
    var changed = (state.forms || "") !== (body.dataset.forms || "");
    if (body.dataset.reloadOnGame !== undefined) { changed = Boolean(state.game); }  // a seat waiting between games
    if (body.dataset.page === "host") {
      var game = state.game ? String(state.game.id) : "";
      var prompt = state.prompt ? "yes" : "", over = state.over ? "yes" : "";
      changed = changed || game !== body.dataset.game || prompt !== body.dataset.prompt || over !== body.dataset.over;
    }
    if (body.dataset.forms !== undefined && changed && !reloadWanted) {
      // data-forms keeps saying what this page shows until it is reloaded; a field being
      // typed in is not taken away: the page looks again when the field is left
      if (typing) { lastState = state; } else { reload(); }
    }
  }
  var lastState = null;
  document.addEventListener("focusout", function () {
    if (lastState) { setTimeout(function () { if (lastState) { var state = lastState; lastState = null; update(state); } }, 0); }
  });

  function show(msg) {
    var live = document.getElementById("live");
    if (live && typeof msg.html === "string") { live.innerHTML = msg.html; }
    update(msg.state);
  }

  // Live updates: a server-sent event stream. When the table has no stream slot left (503)
  // or the stream fails, the page polls instead and tries the stream again now and then;
  // a seat link that is no longer valid (404) reloads, so the page says why.
  var polling = null;
  function poll() {
    fetch(body.dataset.poll, { headers: { "Accept": "application/json" }, credentials: "same-origin" })
      .then(function (response) {
        if (response.status === 404) { window.location.reload(); return null; }
        return response.ok ? response.json() : null;
      })
      .then(function (msg) { if (msg && String(msg.version) !== body.dataset.version) { show(msg); } }, function () {});
  }
  function listen() {
    var source = new EventSource(body.dataset.events);
    source.onopen = function () { if (polling) { clearInterval(polling); polling = null; } };
    source.onmessage = function (event) { show(JSON.parse(event.data)); };
    source.onerror = function () {
      if (source.readyState !== EventSource.CLOSED) { return; }  // the browser retries by itself
      if (!body.dataset.poll) { setTimeout(function () { window.location.reload(); }, 2000); return; }
      if (!polling) { poll(); polling = setInterval(poll, 3000); }
      setTimeout(listen, 60000);
    };
  }
  if (body.dataset.events && window.EventSource) { listen(); }

  // Virtual seat buttons (demo): pressing and releasing drive the seat's mock pin, so a
  // hold locks exactly as on the real button. Each button's requests are sent one after
  // the other, so a quick tap's release never overtakes its press, and a release goes at
  // least TAP_MS after its press was answered: a click whose down and up come together
  // is still a press (the panel drops presses under 20 ms as electrical noise).
  var TAP_MS = 80;
  document.querySelectorAll(".seat-button").forEach(function (button) {
    var seat = encodeURIComponent(button.dataset.seat);
    var down = false;
    var queue = Promise.resolve();
    var pressedAt = 0;
    function queued(url) { queue = queue.then(function () { return post(url, button.closest(".card")); }); }
    function press(e) {
      e.preventDefault();
      if (down) { return; }
      down = true;
      // Held on the button until the finger lifts: a page update that moves the button
      // under a holding finger must not release it (it would cut a hold short).
      if (button.setPointerCapture) { try { button.setPointerCapture(e.pointerId); } catch (err) { /* no pointer */ } }
      button.classList.add("pressed");
      holding += 1;  // a reload waits for the finger to lift
      queued("/demo/press/" + seat);
      queue = queue.then(function () { pressedAt = Date.now(); });
    }
    function release(e) {
      if (!down) { return; }
      down = false;
      button.classList.remove("pressed");
      queue = queue.then(function () {
        return new Promise(function (done) { setTimeout(done, Math.max(0, pressedAt + TAP_MS - Date.now())); });
      });
      queued("/demo/release/" + seat);
      queue.then(function () { holding -= 1; settled(); });
    }
    button.addEventListener("pointerdown", press);
    button.addEventListener("pointerup", release);
    button.addEventListener("pointerleave", release);
    button.addEventListener("pointercancel", release);
  });

  // Buttons inside the live region are re-rendered: listen on the document.
  document.addEventListener("click", function (e) {
    var target = e.target.closest && e.target.closest("[data-post]");
    if (target) { e.preventDefault(); post(target.dataset.post, target.closest(".card") || target.parentNode); }
  });

  // The live camera view: a fresh JPEG a few times a second while the page is visible.
  if (camera) {
    var src = camera.dataset.src;
    var loading = false;
    camera.onload = function () { showFrame(true); loading = false; };
    camera.onerror = function () { showFrame(false); loading = false; };
    setInterval(function () {
      if (document.hidden || loading || !cameraOk) { return; }
      loading = true;
      camera.src = src + "?t=" + Date.now();
    }, 400);
  }
})();
