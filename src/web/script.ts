/**
 * The one script of the owner's pages, served from /web/engram.js (the CSP allows scripts from this
 * server only, never inline). It only enhances: every page works without it. It shows Copy buttons
 * (copying a freshly minted key) and asks before a form marked `data-confirm` is sent.
 */
export const SCRIPT = `'use strict';
document.addEventListener('DOMContentLoaded', function () {
  document.querySelectorAll('button[data-copy]').forEach(function (button) {
    button.hidden = false;
    button.addEventListener('click', function () {
      var target = document.getElementById(button.getAttribute('data-copy'));
      if (!target) return;
      var text = target.value !== undefined ? target.value : target.textContent;
      var done = function () { button.textContent = 'Copied'; };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(text).then(done, function () { target.select && target.select(); });
      } else if (target.select) {
        target.select();
        document.execCommand('copy');
        done();
      }
    });
  });
  document.querySelectorAll('form[data-confirm]').forEach(function (form) {
    form.addEventListener('submit', function (event) {
      if (!window.confirm(form.getAttribute('data-confirm'))) event.preventDefault();
    });
  });
});
`;
