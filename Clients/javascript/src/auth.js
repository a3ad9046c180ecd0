// The browser side of signing in (docs/protocol.md §2.2): the sign-in and sign-out buttons, the
// sign-in window, and the web auth token arriving from it by postMessage. Web auth tokens are kept
// by an authTokenStore: in memory, or in localStorage when apiTokenAuth.persist is true.

export function memoryTokenStore() {
    const tokens = new Map();
    return {
        getToken: (containerIdentifier) => tokens.get(containerIdentifier) ?? null,
        putToken: (containerIdentifier, token) => { if (token) tokens.set(containerIdentifier, token); else tokens.delete(containerIdentifier); },
    };
}

export function localStorageTokenStore(storage) {
    const key = (containerIdentifier) => `stratus.ckWebAuthToken.${containerIdentifier}`;
    return {
        getToken: (containerIdentifier) => storage.getItem(key(containerIdentifier)),
        putToken: (containerIdentifier, token) => { if (token) storage.setItem(key(containerIdentifier), token); else storage.removeItem(key(containerIdentifier)); },
    };
}

const hasDocument = () => typeof document !== 'undefined' && typeof document.getElementById === 'function';

// Puts one button into the element with the given id (nothing when there is no such element, or no
// document: in Node there are no buttons). `theme` becomes a class: stratus-button-black, …
export function renderButton(spec, label, onClick) {
    if (!hasDocument() || !spec) return;
    const host = document.getElementById(spec.id);
    if (!host) return;
    host.textContent = '';
    if (!label) return;
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = label;
    button.className = `stratus-auth-button stratus-button-${String(spec.theme || 'black').toLowerCase()}`;
    button.addEventListener('click', onClick);
    host.appendChild(button);
}

// Opens the sign-in page and calls onToken with the web auth token it posts back.
export function openSignInWindow(url, serverOrigin, onToken) {
    if (typeof window === 'undefined') return false;
    const popup = window.open(url, 'stratus-sign-in', 'width=480,height=640');
    const listener = (event) => {
        if (event.origin !== serverOrigin || !event.data || typeof event.data.ckWebAuthToken !== 'string') return;
        window.removeEventListener('message', listener);
        onToken(event.data.ckWebAuthToken);
    };
    window.addEventListener('message', listener);
    return Boolean(popup);
}

// A token the sign-in page handed over by redirecting back to this page (a token with a callback
// URL): taken out of the address bar so it is not bookmarked or shared.
export function takeTokenFromLocation() {
    if (typeof location === 'undefined' || typeof URL === 'undefined' || !location.href) return undefined;
    const url = new URL(location.href);
    const token = url.searchParams.get('ckWebAuthToken');
    if (!token) return undefined;
    url.searchParams.delete('ckWebAuthToken');
    if (typeof history !== 'undefined') history.replaceState(history.state, '', url.toString());
    return token;
}
