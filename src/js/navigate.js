// page.goto: starts a navigation of the top frame to `url`. Runs in the helper world, so page
// scripts cannot intercept it. (CDP's Page.navigate is not used: chromiumoxide queues it behind
// any earlier navigation until that one loads, which a timed-out navigation never does.)
function (url) {
  window.location.href = url;
  return { ok: true };
}
