/* TabnormImporter: include this script on your page, then
 *   TabnormImporter.open({url, clientSecret, onComplete, onEvent, container})
 * frames the importer at url (an import session's url) and hands it the
 * client secret by postMessage once it says tabnorm:ready: never in a URL.
 * Messages are accepted only from the importer's frame and origin. */
(function () {
  "use strict";
  function open(opts) {
    if (!opts || !opts.url || !opts.clientSecret) throw new Error("TabnormImporter.open needs url and clientSecret");
    var url = new URL(opts.url, window.location.href);
    var origin = url.origin;
    var frame = document.createElement("iframe");
    frame.src = url.href;
    frame.title = opts.title || "Import";
    frame.setAttribute("referrerpolicy", "no-referrer");
    frame.style.width = "100%";
    frame.style.height = opts.height || "640px";
    frame.style.border = "0";
    var closed = false;
    function onMessage(e) {
      if (e.origin !== origin || e.source !== frame.contentWindow) return;
      var m = e.data;
      if (!m || typeof m.type !== "string" || m.type.indexOf("tabnorm:") !== 0) return;
      if (m.type === "tabnorm:ready") {
        frame.contentWindow.postMessage({ type: "tabnorm:init", clientSecret: opts.clientSecret }, origin);
      }
      if (typeof opts.onEvent === "function") opts.onEvent(m);
      if (m.type === "tabnorm:complete" && typeof opts.onComplete === "function") opts.onComplete(m);
      if (m.type === "tabnorm:closed") close();
    }
    function close() {
      if (closed) return;
      closed = true;
      window.removeEventListener("message", onMessage);
      if (frame.parentNode) frame.parentNode.removeChild(frame);
    }
    window.addEventListener("message", onMessage);
    (opts.container || document.body).appendChild(frame);
    return { frame: frame, close: close };
  }
  window.TabnormImporter = { open: open };
})();
