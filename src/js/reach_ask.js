// The service's way to ask js/reach_watch.js (the page's own world) something: evaluated once per
// document, it answers with a function the service calls with a question ({take: fids}, {look:
// {x, y}} or {at: element}), which dispatches it to the watch's listener as an untrusted event and returns what the
// listener put on it (undefined when the document has no watch).
(() => {
  const dispatch = EventTarget.prototype.dispatchEvent;
  const Ask = Event;
  return function ask(question) {
    const e = new Ask('textbrowser:reach-ask');
    e.question = question;
    dispatch.call(window, e);
    return e.answer;
  };
})()
