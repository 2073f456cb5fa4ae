// Live pages without a build step: an EventSource per page replaces the live region with
// the HTML the server rendered for the new version, and updates a few controls.
(function () {
  "use strict";
  var body = document.body;
  var ledWords = {};
  var wordsEl = document.getElementById("led-words");
  if (wordsEl) { try { ledWords = JSON.parse(wordsEl.textContent); } catch (e) { ledWords = {}; } }

  // Errors of the buttons' requests show in a notice at the top, in the page's language.
  function showError(error) {
    var notice = document.getElementById("notice");
    if (!notice || !error) { return; }
    notice.textContent = error[document.documentElement.lang] || error.en || "";
    notice.hidden = false;
    clearTimeout(showError.timer);
    showError.timer = setTimeout(function () { notice.hidden = true; }, 6000);
  }

  var csrfMeta = document.querySelector("meta[name=csrf]");
  var csrf = csrfMeta ? csrfMeta.content : "";

  function post(url) {
    return fetch(url, { method: "POST", headers: { "Accept": "application/json", "X-CSRF-Token": csrf }, credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) {
          return response.json().then(function (body) { showError(body.error); }, function () {});
        }
      }, function () { showError({ en: "The table did not answer; check the connection.", ja: "テーブルから応答がありません。接続を確認してください。" }); });
  }

  // The live camera view polls only while the table reports a working camera.
  var camera = document.getElementById("camera");
  var cameraOk = Boolean(camera && camera.dataset.ok === "yes");

  var reloading = false;

  function update(state) {
    body.dataset.version = state.version;
    cameraOk = Boolean(state.camera && state.camera.ok);
    if (camera && !cameraOk) { camera.hidden = true; }
    document.querySelectorAll("[data-led-for]").forEach(function (el) {
      var led = (state.leds || {})[el.dataset.ledFor] || "off";
      el.textContent = ledWords[led] || led;
      el.dataset.led = led;
    });
    var active = document.activeElement;
    var typing = active && (/SELECT|TEXTAREA/.test(active.tagName) ||
      (active.tagName === "INPUT" && /^(text|number|password|search)$/.test(active.type)));
    // The forms depend on what the game waits for from this page (and, on the host page,
    // on the game and a pending prompt): when that changes, load the page again.
    var changed = (state.forms || "") !== (body.dataset.forms || "");
    if (body.dataset.page === "host") {
      var game = state.game ? String(state.game.id) : "";
      var prompt = state.prompt ? "yes" : "";
      changed = changed || game !== body.dataset.game || prompt !== body.dataset.prompt;
    }
    if (body.dataset.forms !== undefined && changed && !typing && !reloading) {
      reloading = true;  // data-forms keeps saying what this page shows until it is reloaded
      window.location.reload();
    }
  }

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
  // the other, so a quick tap's release never overtakes its press.
  document.querySelectorAll(".seat-button").forEach(function (button) {
    var seat = encodeURIComponent(button.dataset.seat);
    var down = false;
    var queue = Promise.resolve();
    function send(url) { queue = queue.then(function () { return post(url); }); }
    function press(e) {
      e.preventDefault();
      if (down) { return; }
      down = true;
      // Held on the button until the finger lifts: a page update that moves the button
      // under a holding finger must not release it (it would cut a hold short).
      if (button.setPointerCapture) { try { button.setPointerCapture(e.pointerId); } catch (err) { /* no pointer */ } }
      button.classList.add("pressed");
      send("/demo/press/" + seat);
    }
    function release(e) { if (!down) { return; } down = false; button.classList.remove("pressed"); send("/demo/release/" + seat); }
    button.addEventListener("pointerdown", press);
    button.addEventListener("pointerup", release);
    button.addEventListener("pointerleave", release);
    button.addEventListener("pointercancel", release);
  });

  // Buttons inside the live region are re-rendered: listen on the document.
  document.addEventListener("click", function (e) {
    var target = e.target.closest && e.target.closest("[data-post]");
    if (target) { e.preventDefault(); post(target.dataset.post); }
  });

  var throwButton = document.getElementById("demo-throw");
  if (throwButton) {
    throwButton.addEventListener("click", function () { post("/demo/throw"); });
  }

  // The live camera view: a fresh JPEG a few times a second while the page is visible.
  if (camera) {
    var src = camera.dataset.src;
    var loading = false;
    camera.onload = function () { camera.hidden = false; loading = false; };
    camera.onerror = function () { camera.hidden = true; loading = false; };
    setInterval(function () {
      if (document.hidden || loading || !cameraOk) { return; }
      loading = true;
      camera.src = src + "?t=" + Date.now();
    }, 400);
  }
})();
