/**
 * The one script of the owner's pages, served from /web/engram.js (the CSP allows scripts from this
 * server only, never inline). It only enhances: every page works without it. It shows Copy buttons
 * (copying a freshly minted key), asks before a form marked `data-confirm` is sent, shows an
 * import's upload as it goes, and moves a running import's progress bar without reloading.
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
  document.querySelectorAll('form[data-import-upload]').forEach(function (form) {
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var shown = form.querySelector('.upload');
      var bar = form.querySelector('#upload-progress');
      var percent = form.querySelector('#upload-percent');
      form.querySelector('button[type=submit]').disabled = true;
      shown.hidden = false;
      var xhr = new XMLHttpRequest();
      xhr.upload.addEventListener('progress', function (e) {
        if (!e.lengthComputable) return;
        bar.value = Math.floor((100 * e.loaded) / e.total);
        percent.textContent = bar.value + '%';
      });
      // The post answers with a redirect to the run's page (or back here with a message): go where it led.
      xhr.addEventListener('load', function () { window.location.assign(xhr.responseURL || form.action); });
      xhr.addEventListener('error', function () { form.submit(); });
      xhr.open('POST', form.action);
      xhr.send(new FormData(form));
    });
  });
  document.querySelectorAll('[data-import-run]').forEach(function (section) {
    var bar = section.querySelector('#import-progress');
    var phase = section.querySelector('#import-phase');
    var url = '/import/runs/' + encodeURIComponent(section.getAttribute('data-import-run')) + '/progress';
    // Without the script the page reloads itself (a refresh in <noscript>); with it, the bar moves in place.
    var poll = function () {
      fetch(url, { credentials: 'same-origin', cache: 'no-store' }).then(function (r) { return r.json(); }).then(function (p) {
        if (p.state !== 'running') { window.location.reload(); return; }
        bar.value = p.percent;
        phase.textContent = p.text;
        setTimeout(poll, 400);
      }, function () { setTimeout(poll, 2000); });
    };
    poll();
  });
});
`;
