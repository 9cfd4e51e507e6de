/* TabnormImporter: include this script on your page, then
 *   TabnormImporter.open({url, clientSecret, onComplete, onEvent, onError, container, mode})
 * frames the importer at url (an import session's url) and hands it the
 * client secret by postMessage once it says tabnorm:ready: never in a URL.
 * Messages are accepted only from the importer's frame and origin.
 * Types: importer.d.ts, served beside this file. */
(function () {
  "use strict";
  var DEFAULT_READY_TIMEOUT = 15000;

  function open(opts) {
    if (!opts || !opts.url || !opts.clientSecret) throw new Error("TabnormImporter.open needs url and clientSecret");
    var url = new URL(opts.url, window.location.href);
    var origin = url.origin;
    var modal = opts.mode === "modal";
    var opener = document.activeElement;
    var frame = document.createElement("iframe");
    frame.src = url.href;
    frame.title = opts.title || "Import";
    frame.setAttribute("referrerpolicy", "no-referrer");
    frame.style.display = "block";
    frame.style.width = "100%";
    // Sized by the importer's tabnorm:resize unless the host set a height.
    frame.style.height = opts.height || "480px";
    frame.style.border = "0";
    var closed = false;
    var ready = false;
    var dialog = null;

    function emit(m) {
      if (typeof opts.onEvent === "function") opts.onEvent(m);
      if (m.type === "tabnorm:complete" && typeof opts.onComplete === "function") opts.onComplete(m);
      if (m.type === "tabnorm:error" && typeof opts.onError === "function") opts.onError(m);
    }

    function onMessage(e) {
      if (e.origin !== origin || e.source !== frame.contentWindow) return;
      var m = e.data;
      if (!m || typeof m.type !== "string" || m.type.indexOf("tabnorm:") !== 0) return;
      if (m.type === "tabnorm:ready") {
        ready = true;
        frame.contentWindow.postMessage({ type: "tabnorm:init", clientSecret: opts.clientSecret, mode: modal ? "modal" : "inline" }, origin);
      }
      if (m.type === "tabnorm:resize" && !opts.height && typeof m.height === "number" && m.height > 0) {
        frame.style.height = Math.ceil(m.height) + "px";
      }
      emit(m);
      if (m.type === "tabnorm:closed") close();
    }

    // A frame the browser refuses (the page's origin is not among the
    // session's allowed_origins, or the session ended) never says ready:
    // after readyTimeout the host hears frame_blocked, naming its origin.
    var timer = setTimeout(function () {
      if (ready || closed) return;
      emit({ type: "tabnorm:error", code: "frame_blocked",
        message: "The importer at " + origin + " did not load in this page within " + (opts.readyTimeout || DEFAULT_READY_TIMEOUT) +
          " ms. Is this page's origin, " + window.location.origin + ", among the import session's allowed_origins? " +
          "An expired or revoked session, or a network failure, looks the same." });
      close();
    }, opts.readyTimeout || DEFAULT_READY_TIMEOUT);

    function close() {
      if (closed) return;
      closed = true;
      clearTimeout(timer);
      window.removeEventListener("message", onMessage);
      if (dialog) {
        if (dialog.open) dialog.close();
        if (dialog.parentNode) dialog.parentNode.removeChild(dialog);
        if (opener && typeof opener.focus === "function" && document.contains(opener)) opener.focus();
      } else if (frame.parentNode) {
        frame.parentNode.removeChild(frame);
      }
    }

    window.addEventListener("message", onMessage);
    if (modal) {
      // A modal dialog over the host page: the rest of the page is inert,
      // so the focus stays in the importer; Escape closes it (the
      // importer tells when the key is pressed inside it), and the focus
      // goes back to what had it.
      dialog = document.createElement("dialog");
      dialog.setAttribute("aria-label", opts.title || "Import");
      dialog.className = "tabnorm-modal";
      var s = dialog.style;
      s.padding = "0";
      s.border = "0";
      s.borderRadius = "8px";
      s.width = "min(960px, calc(100vw - 24px))";
      s.maxWidth = "none";
      s.maxHeight = "calc(100vh - 24px)";
      s.overflow = "auto";
      s.boxShadow = "0 10px 40px rgba(0, 0, 0, 0.35)";
      dialog.addEventListener("cancel", function (e) {
        e.preventDefault();
        close();
      });
      // Tab past the importer's last control (or Shift+Tab before its
      // first) lands on a guard that sends the focus round to the other
      // end: the focus stays in the importer.
      var guard = function (at) {
        var g = document.createElement("span");
        g.tabIndex = 0;
        g.className = "tabnorm-focus-guard";
        g.style.position = "absolute";
        g.style.width = "1px";
        g.style.height = "1px";
        g.style.overflow = "hidden";
        g.addEventListener("focus", function () {
          frame.focus();
          if (ready) frame.contentWindow.postMessage({ type: "tabnorm:focus", at: at }, origin);
        });
        return g;
      };
      dialog.appendChild(guard("last"));
      dialog.appendChild(frame);
      dialog.appendChild(guard("first"));
      document.body.appendChild(dialog);
      dialog.showModal();
      frame.focus();
    } else {
      (opts.container || document.body).appendChild(frame);
    }
    return { frame: frame, dialog: dialog, close: close };
  }
  window.TabnormImporter = { open: open };
})();
