// Emergency access: the daemon's friction challenge (a wait, then random text typed by hand).
import {enc, post} from './api.js';
import {clock, failureText, h, replace} from './dom.js';

export async function unlockDialog(session, name) {
  const dialog = document.getElementById('sheet');
  const body = h('div', {class: 'sheet-body'});
  const close = h('button', {class: 'secondary', type: 'button', onclick: () => dialog.close()}, 'Cancel');
  replace(dialog, h('h2', {id: 'sheet-title'}, `Emergency access: ${name}`), body, h('div', {class: 'actions'}, close));
  dialog.setAttribute('aria-labelledby', 'sheet-title');
  dialog.showModal();
  let first;
  try {
    first = await post(`/v1/sessions/${enc(session.id)}/unlock`, {});
  } catch (error) {
    replace(body, h('p', {class: 'error', role: 'alert'}, failureText(error)));
    return;
  }
  const challenge = first.challenge;
  const allowance = first.allowance;
  const text = challenge.pieces.slice().sort((a, b) => a.position - b.position).map((p) => p.text).join(' · ');
  const waitEl = h('p', {class: 'wait', role: 'timer'});
  const input = h('input', {id: 'unlock-answer', type: 'text', autocomplete: 'off', spellcheck: 'false', disabled: true,
    onpaste: (e) => e.preventDefault(), 'aria-describedby': 'unlock-text'});
  const problem = h('div', {class: 'problem'});
  const submit = h('button', {class: 'danger', type: 'submit', disabled: true}, 'End the block early');
  const form = h('form', {onsubmit: async (e) => {
    e.preventDefault();
    submit.disabled = true;
    try {
      await post(`/v1/sessions/${enc(session.id)}/unlock`, {challenge: challenge.id, answer: input.value});
      dialog.close();
    } catch (error) {
      replace(problem, h('p', {class: 'error', role: 'alert'}, failureText(error)));
      submit.disabled = false;
    }
  }},
    h('p', {}, `${allowance.used} of ${allowance.allowed} early ends used in the last 7 days. Leaving this sheet restarts the wait.`),
    waitEl,
    h('p', {}, 'Type this text without the · separators (pasting is refused):'),
    h('p', {class: 'challenge', id: 'unlock-text'}, text),
    h('div', {class: 'field'}, h('label', {for: 'unlock-answer'}, 'Text'), input),
    h('div', {class: 'actions'}, submit), problem);
  replace(body, form);
  const ready = Date.now() + challenge.waitSeconds * 1000 + 200;
  const timer = setInterval(() => {
    const left = (ready - Date.now()) / 1000;
    if (left > 0) {
      waitEl.textContent = `Wait ${clock(left)} before typing.`;
      return;
    }
    clearInterval(timer);
    waitEl.textContent = 'You may type the text now.';
    input.disabled = false;
    submit.disabled = false;
    input.focus();
  }, 250);
  dialog.addEventListener('close', () => clearInterval(timer), {once: true});
}
