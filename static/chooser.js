// Ticking memories to forget several at once, by hand and without a framework (the page works without it):
//
// - Shift-click ticks (or unticks) every memory between the last one clicked and this one.
// - "Tick all on this page" ticks every memory shown; the line above the list counts what is ticked.
//   Without a script it could not, so the page sends it hidden and this shows it.
// - Changing a tick closes the question open about the ticks, so what is forgotten is what is ticked.
// - What is ticked stays ticked when the list is redrawn in place (a correction saved or cancelled, an
//   Undo): every ticked memory still shown afterwards is ticked again.
(function () {
  "use strict";

  let last = null;
  const reopened = new Set(); // the ids ticked in a part about to be redrawn, until it is

  document.addEventListener("htmx:beforeSwap", function (event) {
    const part = event.detail.target;
    if (!(part instanceof Element)) {
      return;
    }
    part.querySelectorAll("input[data-select]").forEach(function (box) {
      if (box.checked) {
        reopened.add(box.value);
      }
    });
  });

  function tickAgain() {
    reopened.forEach(function (id) {
      const row = document.getElementById("entry-" + id);
      if (row !== null && row.hasAttribute("data-editing")) {
        return; // still open: it is ticked again when it comes back
      }
      const box = row === null ? null : row.querySelector("input[data-select]");
      if (box !== null) {
        box.checked = true;
      }
      reopened.delete(id); // back ticked, or gone (forgotten)
    });
  }

  function boxes() {
    return Array.from(document.querySelectorAll("input[data-select]"));
  }

  function count() {
    const line = document.querySelector("[data-chosen-count]");
    if (line === null) {
      return;
    }
    const ticked = boxes().filter(function (box) {
      return box.checked;
    }).length;
    if (!line.hasAttribute("data-idle")) {
      line.setAttribute("data-idle", line.textContent);
    }
    line.textContent = ticked === 0 ? line.getAttribute("data-idle") : ticked.toLocaleString() + " ticked.";
    line.toggleAttribute("data-ticked", ticked > 0);
    const page = document.querySelector("[data-select-page]");
    if (page !== null) {
      page.checked = ticked > 0 && ticked === boxes().length;
    }
  }

  // A question open about what was ticked no longer asks about what is ticked once a tick changes: it
  // closes, and "Forget the ticked…" asks again about the ticks as they are.
  function closeQuestion() {
    const question = document.querySelector("[data-chooser-confirm] [data-confirm-chosen]");
    // a question about every memory that matches does not depend on the ticks
    if (question !== null && question.querySelector("input[name='all'][value='1']") === null) {
      question.parentElement.replaceChildren();
    }
  }

  document.addEventListener("click", function (event) {
    const box = event.target;
    if (!(box instanceof HTMLInputElement)) {
      return;
    }
    if (box.hasAttribute("data-select-page") || box.hasAttribute("data-select")) {
      closeQuestion();
    }
    if (box.hasAttribute("data-select-page")) {
      boxes().forEach(function (each) {
        each.checked = box.checked;
      });
      count();
      return;
    }
    if (!box.hasAttribute("data-select")) {
      return;
    }
    const all = boxes();
    if (event.shiftKey && last !== null && all.indexOf(last) >= 0) {
      const from = all.indexOf(last);
      const to = all.indexOf(box);
      all.slice(Math.min(from, to), Math.max(from, to) + 1).forEach(function (each) {
        each.checked = box.checked;
      });
    }
    last = box;
    count();
  });

  function reveal() {
    document.querySelectorAll("[data-needs-script][hidden]").forEach(function (part) {
      part.hidden = false;
    });
  }

  reveal();
  document.addEventListener("DOMContentLoaded", reveal);
  document.addEventListener("htmx:afterSettle", function () {
    reveal();
    tickAgain();
    count();
  });
})();
