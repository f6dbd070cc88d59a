/**
 * An inline script for the root layout's <head>: a page whose own script or stylesheet failed to
 * load (`/_next/static/…`: a dropped connection, Chromium's net::ERR_NETWORK_CHANGED while Docker
 * adds or removes interfaces, a new build that replaced the chunks) reloads itself, at most once
 * per page in RELOAD_GUARD_MS, instead of staying unhydrated or showing Next's "Application error".
 * A resource's error event does not bubble; a listener on window in the capture phase sees it,
 * both for the tags of the first HTML and for the chunks webpack adds to <head> later.
 */
export const RELOAD_GUARD_MS = 10_000;

export const ASSET_RELOAD_SCRIPT = `(function () {
  window.addEventListener("error", function (e) {
    var t = e.target;
    if (!t || (t.tagName !== "SCRIPT" && t.tagName !== "LINK")) return;
    var url = t.src || t.href || "";
    if (url.indexOf("/_next/static/") === -1) return;
    var key = "scalelab-asset-reload:" + location.pathname;
    try {
      if (Date.now() - Number(sessionStorage.getItem(key) || 0) < ${RELOAD_GUARD_MS}) return;
      sessionStorage.setItem(key, String(Date.now()));
    } catch (_) {
      return;
    }
    location.reload();
  }, true);
})();`;
