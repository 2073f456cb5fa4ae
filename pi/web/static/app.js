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

  function send(url, data, near) {
    return fetch(url, { method: "POST", body: data, headers: { "Accept": "application/json", "X-CSRF-Token": csrf }, credentials: "same-origin" })
      .then(function (response) {
        return response.json().then(function (answer) {
          if (!response.ok || answer.ok === false) { showError(answer.error || offline, near); return false; }
          if (answer.message) { showToast(words(answer.message), "ok"); }
          return true;
        }, function () { if (!response.ok) { showError(offline, near); } return response.ok; });
      }, function () { showError(offline, near); return false; });
  }
  function post(url, near) { return send(url, null, near); }

  // Forms are sent without leaving the page, so a refusal keeps what was typed and shows
  // beside the form. A form with data-confirm asks first and says what will be lost.
  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (!form.matches || !form.matches("form.input-form, form[data-async], form[data-confirm]")) { return; }
    if (form.dataset.confirm) {
      if (!window.confirm(form.dataset.confirm)) { e.preventDefault(); return; }
      var flag = form.querySelector("input[name=confirm]");
      if (!flag) { flag = document.createElement("input"); flag.type = "hidden"; flag.name = "confirm"; form.appendChild(flag); }
      flag.value = "1";
      if (!form.matches("form.input-form, form[data-async]")) { return; }  // a plain post: the page follows it
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
        if (form.dataset.reload !== undefined) { window.location.reload(); }
      }
    });
  });

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
    function queued(url) { queue = queue.then(function () { return post(url, button.closest(".card")); }); }
    function press(e) {
      e.preventDefault();
      if (down) { return; }
      down = true;
      // Held on the button until the finger lifts: a page update that moves the button
      // under a holding finger must not release it (it would cut a hold short).
      if (button.setPointerCapture) { try { button.setPointerCapture(e.pointerId); } catch (err) { /* no pointer */ } }
      button.classList.add("pressed");
      queued("/demo/press/" + seat);
    }
    function release(e) { if (!down) { return; } down = false; button.classList.remove("pressed"); queued("/demo/release/" + seat); }
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

  var throwButton = document.getElementById("demo-throw");
  if (throwButton) {
    throwButton.addEventListener("click", function () { post("/demo/throw", throwButton.closest(".card")); });
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
