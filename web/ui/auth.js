// Signing in to an API server that requires bearer tokens (--token-file), as
// kube's dashboard does: the page asks for a token, keeps it in this tab's
// sessionStorage (gone when the tab closes, never sent anywhere but this
// origin) and sends it as `Authorization: Bearer` with every request,
// watches included. A 401 (no token, or one the server no longer takes)
// shows the form again; the requests waiting on it go on with the new token.

const kKey = 'berth.token';

export function token() {
  try {
    return sessionStorage.getItem(kKey) || '';
  } catch {
    return '';  // storage disabled: no token kept
  }
}

function setToken(value) {
  try {
    if (value) sessionStorage.setItem(kKey, value); else sessionStorage.removeItem(kKey);
  } catch { /* storage disabled */ }
}

// `headers` with the Authorization header when a token is kept.
export function withAuth(headers = {}) {
  const t = token();
  return t ? { ...headers, Authorization: `Bearer ${t}` } : headers;
}

// The sign-in form's elements: {form, input, error, signOut} (all optional,
// so that the module works without them, e.g. in tests).
let ui = null;
let pending = null;  // the promise of the sign-in in progress

export function bindSignIn(elements) {
  ui = elements;
  ui.signOut?.addEventListener('click', () => {
    setToken('');
    location.reload();
  });
  if (ui.signOut) ui.signOut.hidden = !token();
}

// Whether `candidate` is accepted by the API: a read every dashboard needs.
async function accepted(candidate) {
  const response = await fetch('/api', { headers: { Accept: 'application/json', Authorization: `Bearer ${candidate}` } });
  if (response.status === 401) return false;
  if (!response.ok) throw new Error(`/api: ${response.status}`);
  return true;
}

// Shows the form until a token is accepted; resolves then. Concurrent
// callers share one form.
export function signIn(reason = '') {
  if (pending) return pending;
  if (!ui?.form) return Promise.reject(new Error('the API server asks for a token (401 Unauthorized)'));
  pending = new Promise((resolve) => {
    const { form, input, error, signOut } = ui;
    form.hidden = false;
    document.body.classList.add('signing-in');
    if (error) error.textContent = reason;
    input.value = '';
    input.focus();
    const submit = async (e) => {
      e.preventDefault();
      const candidate = input.value.trim();
      if (!candidate) return;
      try {
        if (!(await accepted(candidate))) {
          if (error) error.textContent = 'The server did not accept this token (401 Unauthorized).';
          return;
        }
      } catch (err) {
        if (error) error.textContent = err.message;
        return;
      }
      setToken(candidate);
      form.removeEventListener('submit', submit);
      form.hidden = true;
      document.body.classList.remove('signing-in');
      if (signOut) signOut.hidden = false;
      pending = null;
      resolve();
    };
    form.addEventListener('submit', submit);
  });
  return pending;
}

// fetch() with the token; a 401 asks for a token and tries again.
export async function apiFetch(url, init = {}) {
  for (;;) {
    const response = await fetch(url, { ...init, headers: withAuth(init.headers) });
    if (response.status !== 401) return response;
    setToken('');
    await signIn('The server asks for a bearer token.');
  }
}

// Before the page reads anything: a token when the server wants one.
export async function ensureSignedIn() {
  const response = await fetch('/api', { headers: withAuth({ Accept: 'application/json' }) });
  if (response.status === 401) {
    const had = token();
    setToken('');
    await signIn(had ? 'The kept token is no longer accepted.' : '');
  }
}
