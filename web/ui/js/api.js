// The daemon's API, relayed by the UI server (same origin; the session cookie goes along).

export class ApiError extends Error {
  constructor(status, code, message, hint) {
    super(message);
    this.status = status;
    this.code = code;
    this.hint = hint;
  }
}

/** One request; the daemon's error object becomes an ApiError with its message. */
export async function api(method, path, body) {
  const init = {method, credentials: 'same-origin', headers: {Accept: 'application/json'}};
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    throw new ApiError(0, 'unreachable', 'the UI server does not answer (was `lockctl ui` stopped?)');
  }
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) {
    const error = data?.error;
    throw new ApiError(response.status, error?.code ?? 'http_' + response.status, error?.message ?? (text.trim() || response.statusText), error?.hint);
  }
  return data;
}

export const get = (path) => api('GET', path);
export const post = (path, body = {}) => api('POST', path, body);
export const patch = (path, body) => api('PATCH', path, body);
export const del = (path) => api('DELETE', path);
export const enc = encodeURIComponent;

/**
 * Follows GET /v1/events (one JSON object per line) and calls `onEvent` for each; reconnects
 * after a pause when the stream ends. `onState` hears 'live' or 'reconnecting'.
 */
export function followEvents(onEvent, onState) {
  let stopped = false;
  let delay = 500;
  const controller = new AbortController();
  async function run() {
    while (!stopped) {
      try {
        const response = await fetch('/v1/events', {credentials: 'same-origin', signal: controller.signal});
        if (!response.ok || !response.body) throw new Error('events: ' + response.status);
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const {value, done} = await reader.read();
          if (done) break;
          buffer += value;
          let newline;
          while ((newline = buffer.indexOf('\n')) >= 0) {
            const line = buffer.slice(0, newline).trim();
            buffer = buffer.slice(newline + 1);
            if (!line) continue;
            let event;
            try {
              event = JSON.parse(line);
            } catch {
              continue;
            }
            if (event.type === 'hello') {
              delay = 500;
              onState('live');
            }
            onEvent(event);
          }
        }
      } catch (error) {
        if (stopped) return;
      }
      onState('reconnecting');
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 10000);
    }
  }
  run();
  return () => {
    stopped = true;
    controller.abort();
  };
}
