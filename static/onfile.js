// What the dashboard adds to htmx, by hand and without a framework: every page works without it.
//
// - A request that failed is said, always. OnFile answers a refusal it knows (403, 404, 409, 410, a
//   session that ended, a database outage) with a notice fragment, which the page's htmx
//   configuration puts in #notice. Anything else — a 500, a proxy's page, no answer at all — is not
//   shown as it came: a notice of our own says that it did not go through, and how to carry on.
// - While a request runs, the element that sent it and the part of the page it will replace are
//   marked busy (aria-busy; the buttons are disabled by hx-disabled-elt in the markup), so a second
//   click cannot send it again. A request still running after 300 ms says so: "Loading…" in a status
//   region at the top of the window, and the part being replaced dims. A quicker answer shows nothing.
// - The keyboard keeps its place. An update that replaced the focused control (a Cancel, "Keep it",
//   Pause) gives the focus back to the control that opened what was closed — Correct, Edit, Delete,
//   "Forget the ticked…", or the one a control names in data-returns-to — or else to the first
//   control of what came in its place, never the top of the document. Escape closes what is open in
//   place, as its Cancel does. "Keep them", on the question before forgetting several, closes it in
//   place with the ticks as they were; without a script it is a link back to the list. A fact is
//   one line: Enter in its box saves it.
(function () {
  "use strict";

  // Marks the page as scripted: a form whose changes apply by themselves hides its submit button.
  document.documentElement.setAttribute("data-scripted", "");

  function noticeArea() {
    let area = document.getElementById("notice");
    if (area === null) {
      area = document.createElement("div");
      area.className = "notices";
      area.id = "notice";
      area.setAttribute("aria-live", "polite");
      document.body.appendChild(area);
    }
    return area;
  }

  function showProblem(heading, message) {
    const notice = document.createElement("div");
    notice.className = "notice notice-problem";
    notice.setAttribute("role", "alert");
    notice.setAttribute("data-problem", "unanswered");
    notice.tabIndex = -1;
    const text = document.createElement("div");
    text.className = "notice-text";
    const line = document.createElement("p");
    line.className = "notice-message";
    const strong = document.createElement("strong");
    strong.textContent = heading + ".";
    line.append(strong, " " + message);
    text.appendChild(line);
    const actions = document.createElement("div");
    actions.className = "notice-actions";
    const reload = document.createElement("a");
    reload.className = "button";
    reload.href = window.location.href;
    reload.setAttribute("data-action", "reload");
    reload.textContent = "Reload the page";
    actions.appendChild(reload);
    notice.append(text, actions);
    noticeArea().replaceChildren(notice);
    notice.focus();
  }

  function isOurNotice(response) {
    const parsed = new DOMParser().parseFromString(response || "", "text/html");
    const root = parsed.body.firstElementChild;
    return root !== null && root.hasAttribute("data-problem") && parsed.body.childElementCount === 1;
  }

  const LOADING_AFTER_MS = 300;
  const running = new Set();
  let loadingTimer = null;

  function loadingArea() {
    let area = document.getElementById("loading");
    if (area === null) {
      area = document.createElement("div");
      area.className = "loading";
      area.id = "loading";
      area.setAttribute("role", "status");
      area.setAttribute("data-loading", "");
      document.body.appendChild(area);
    }
    return area;
  }

  function showLoading() {
    loadingTimer = null;
    document.documentElement.setAttribute("data-loading", "");
    loadingArea().textContent = "Loading…";
  }

  function started(xhr) {
    running.add(xhr);
    if (loadingTimer === null && !document.documentElement.hasAttribute("data-loading")) {
      loadingTimer = window.setTimeout(showLoading, LOADING_AFTER_MS);
    }
  }

  function ended(xhr) {
    running.delete(xhr);
    if (running.size > 0) {
      return;
    }
    if (loadingTimer !== null) {
      window.clearTimeout(loadingTimer);
      loadingTimer = null;
    }
    document.documentElement.removeAttribute("data-loading");
    loadingArea().textContent = "";
  }

  function busy(event, on) {
    for (const element of new Set([event.detail.elt, event.detail.target])) {
      if (element instanceof Element) {
        if (on) {
          element.setAttribute("aria-busy", "true");
        } else {
          element.removeAttribute("aria-busy");
        }
      }
    }
  }

  // While a notice shows at the foot of the window, the control the keyboard is on scrolls clear of it:
  // the page's scroll padding (`--notice-space`, in onfile.css) follows the notice's own height, which
  // a narrow window can make a third of the screen.
  function keepClearOfNotices(area) {
    if (!("ResizeObserver" in window)) {
      return;
    }
    new ResizeObserver(function () {
      const height = Math.ceil(area.getBoundingClientRect().height);
      document.documentElement.style.setProperty("--notice-space", height > 0 ? height + 32 + "px" : "0px");
    }).observe(area);
  }

  document.addEventListener("DOMContentLoaded", function () {
    keepClearOfNotices(noticeArea());
    loadingArea();
  });

  document.addEventListener("htmx:beforeSwap", function (event) {
    const detail = event.detail;
    if (!detail.isError || isOurNotice(detail.serverResponse)) {
      return;
    }
    detail.shouldSwap = false;
    const status = detail.xhr.status;
    if (status >= 500) {
      showProblem(
        "That may not have been done",
        "OnFile ran into a problem (error " + status + "). Reload the page to see where things stand, then try again."
      );
    } else {
      showProblem("That was not done", "OnFile could not do it (error " + status + "). Reload the page and try again.");
    }
  });

  document.addEventListener("htmx:sendError", function () {
    showProblem(
      "OnFile could not be reached",
      "Check your connection. Then reload the page to see where things stand, and try again."
    );
  });

  // Which control opened what is now in each part of the page, by the part's id; and the request
  // on its way: the control that sent it, and then the part its answer replaces (the answer may
  // name another part than the request aimed at).
  const openedBy = new Map();
  let sentBy = "";
  let swappedPart = null;

  function focusLost() {
    return document.activeElement === null || document.activeElement === document.body;
  }

  function opener(detail) {
    const triggering = detail.requestConfig ? detail.requestConfig.triggeringEvent : null;
    const element = triggering && triggering.submitter ? triggering.submitter : detail.elt;
    return element instanceof Element ? element.closest("[data-action]") : null;
  }

  document.addEventListener("htmx:beforeRequest", function (event) {
    busy(event, true);
    started(event.detail.xhr);
    const control = opener(event.detail);
    sentBy = control === null ? "" : control.getAttribute("data-returns-to") || control.getAttribute("data-action");
    // A notice that an earlier correction is done would read as the answer to this one: it goes as this starts.
    const elt = event.detail.elt;
    const correcting = elt instanceof Element && elt.matches("[data-edit-form]"); // saved with Enter too
    if (correcting || (control !== null && ["edit", "save-edit"].includes(control.getAttribute("data-action")))) {
      document.querySelectorAll('#notice [data-notice="done"]').forEach(function (done) {
        done.remove();
      });
    }
  });

  document.addEventListener("htmx:beforeSwap", function (event) {
    const target = event.detail.target;
    swappedPart = target instanceof Element && target.id ? target.id : null;
    if (swappedPart !== null && sentBy && !sentBy.startsWith("cancel")) {
      openedBy.set(swappedPart, sentBy);
    }
  });

  document.addEventListener("htmx:afterSettle", function () {
    const part = swappedPart === null ? null : document.getElementById(swappedPart);
    if (part === null || !focusLost()) {
      return;
    }
    const action = openedBy.get(part.id);
    const control =
      (action ? part.querySelector('[data-action="' + action + '"]') : null) ||
      part.querySelector("button, a[href], input:not([type=hidden]), select, textarea");
    if (control !== null) {
      control.focus();
    }
  });

  // A fact is one line: Enter in its box saves it, as the form's button does, rather than starting a
  // second line the save would refuse (Shift+Enter too: there is no second line to start).
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Enter" || event.defaultPrevented || event.isComposing || !(event.target instanceof HTMLTextAreaElement)) {
      return;
    }
    const box = event.target;
    if (!box.matches("[data-edit-text], textarea[data-field='text']") || box.form === null) {
      return;
    }
    event.preventDefault();
    box.form.requestSubmit();
  });

  // Escape closes what is open in place, as its Cancel (or "Keep …") does: a correction, an edit, a
  // question before deleting, publishing or forgetting several.
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape" || event.defaultPrevented || !(event.target instanceof Element)) {
      return;
    }
    const open = event.target.closest(
      "[data-editing], [data-confirm-chosen], [data-confirm-delete], [data-confirm-promote], [data-confirm-replace]"
    );
    const cancel = open === null ? null : open.querySelector("[data-action^='cancel'], [data-confirm-replace] [data-action='keep']");
    if (cancel !== null) {
      event.preventDefault();
      cancel.click();
    }
  });

  document.addEventListener("click", function (event) {
    const keep = event.target instanceof Element ? event.target.closest("[data-chooser-confirm] [data-action='cancel']") : null;
    if (keep === null || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) {
      return;
    }
    event.preventDefault();
    const area = keep.closest("[data-chooser-confirm]");
    area.replaceChildren();
    const control = document.querySelector('[data-action="' + (openedBy.get(area.id) || "forget-chosen") + '"]');
    if (control !== null) {
      control.focus();
    }
  });

  document.addEventListener("htmx:afterRequest", function (event) {
    busy(event, false);
    ended(event.detail.xhr);
  });
  for (const name of ["htmx:sendAbort", "htmx:sendError", "htmx:timeout"]) {
    document.addEventListener(name, function (event) {
      ended(event.detail.xhr);
    });
  }
})();
