import {CKError, configurationError, isErrorDictionary} from './errors.js';
import {ErrorCode} from './constants.js';
import {importPrivateKey, signatureHeaders} from './signing.js';

// One container's connection to the server: builds CKWS URLs, adds the credentials (API token and
// web auth token in the query, or a server-to-server signature), follows rotated web auth tokens,
// retries THROTTLED / TRY_AGAIN_LATER after retryAfter, and turns every failure into a CKError.

const ROTATED_TOKEN_HEADER = 'X-Apple-CloudKit-Web-Auth-Token';
const RETRYABLE = new Set([ErrorCode.THROTTLED, ErrorCode.TRY_AGAIN_LATER]);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export class Transport {
    constructor(options) {
        // serverURL, containerIdentifier, environment, apiToken, keyAuth, fetch, logger, tokenStore,
        // maxRetries, maxRetryDelay (seconds)
        Object.assign(this, options);
        this.keyPromise = undefined;
        this.onAuthenticationRequired = undefined;
    }

    get webAuthToken() { return this.tokenStore.getToken(this.containerIdentifier) || undefined; }

    set webAuthToken(token) { this.tokenStore.putToken(this.containerIdentifier, token || null); }

    databaseURL(database, operation) {
        return `${this.serverURL}/database/1/${encodeURIComponent(this.containerIdentifier)}/${this.environment}/${database}/${operation}`;
    }

    // A server function of an app's own Stratus server (a Stratus extension).
    functionURL(name) {
        return `${this.serverURL}/functions/1/${encodeURIComponent(this.containerIdentifier)}/${this.environment}/${encodeURIComponent(name)}`;
    }

    // A database operation. `body` undefined sends a GET.
    request(database, operation, body) {
        return this.send(this.databaseURL(database, operation), body, true);
    }

    async privateKey() {
        if (!this.keyPromise) {
            const auth = this.keyAuth;
            this.keyPromise = (async () => {
                let pem = auth.privateKey;
                if (pem === undefined && auth.privateKeyFile) {
                    if (typeof process === 'undefined' || !process.versions?.node) {
                        throw configurationError('serverToServerKeyAuth.privateKeyFile works in Node only; give privateKey (the PEM text) instead');
                    }
                    const fs = await import('node:fs/promises');
                    try {
                        pem = await fs.readFile(auth.privateKeyFile, 'utf8');
                    } catch (error) {
                        throw configurationError(`cannot read serverToServerKeyAuth.privateKeyFile ${auth.privateKeyFile}: ${error.message}`);
                    }
                }
                return importPrivateKey(pem);
            })();
            this.keyPromise.catch(() => { this.keyPromise = undefined; });
        }
        return this.keyPromise;
    }

    // Sends one request, with retries; answers the parsed JSON object (an atomic batch's 400 answer
    // included, whose records carry the errors) or rejects with a CKError.
    // `anyJSON`: any JSON value is an answer (a server function's), not only an object.
    async send(url, body, authenticated, {anyJSON = false} = {}) {
        const bodyText = body === undefined ? undefined : JSON.stringify(body);
        for (let attempt = 0; ; attempt++) {
            try {
                return await this.sendOnce(url, bodyText, authenticated, anyJSON);
            } catch (error) {
                if (!(error instanceof CKError) || !RETRYABLE.has(error.ckErrorCode) || attempt >= this.maxRetries) throw error;
                const seconds = Math.min(error.retryAfter ?? 2 ** attempt, this.maxRetryDelay);
                this.logger?.info?.(`CloudKit: ${error.ckErrorCode}; retrying in ${seconds} s (attempt ${attempt + 1} of ${this.maxRetries})`);
                await sleep(seconds * 1000);
            }
        }
    }

    async sendOnce(url, bodyText, authenticated, anyJSON = false) {
        const headers = {'Content-Type': 'text/plain'};
        let target = url;
        let usedToken;
        if (authenticated) {
            if (this.keyAuth && !this.apiToken) {
                const key = await this.privateKey();
                const parsed = new URL(url);
                Object.assign(headers, await signatureHeaders(key, this.keyAuth.keyID, parsed.pathname + parsed.search,
                    bodyText, this.keyAuth.actAsUserRecordName));
            } else {
                usedToken = this.webAuthToken;
                target += `${url.includes('?') ? '&' : '?'}ckAPIToken=${encodeURIComponent(this.apiToken)}`;
                if (usedToken) target += `&ckWebAuthToken=${encodeURIComponent(usedToken)}`;
            }
        }
        const init = bodyText === undefined ? {method: 'GET', headers} : {method: 'POST', headers, body: bodyText};
        return this.exchange(target, init, usedToken, anyJSON);
    }

    // The raw bytes of an asset to its upload URL (docs/protocol.md §8); answers {singleFile}.
    upload(url, bytes) {
        return this.exchange(url, {method: 'POST', body: bytes});
    }

    async exchange(target, init, usedToken, anyJSON = false) {
        let response;
        let text;
        try {
            response = await this.fetch.call(globalThis, target, init);
            text = await response.text();
        } catch (error) {
            throw new CKError(ErrorCode.NETWORK_ERROR,
                `could not reach ${this.serverURL} (${error.cause?.code || error.message}); check the server address and that the server is running`);
        }
        const rotated = response.headers.get(ROTATED_TOKEN_HEADER);
        if (rotated && usedToken !== undefined && this.webAuthToken === usedToken) this.webAuthToken = rotated;
        let json;
        try {
            json = text === '' ? {} : JSON.parse(text);
        } catch {
            throw unexpected(response.status, `a body that is not JSON: ${JSON.stringify(text.slice(0, 80))}`);
        }
        if (response.ok && anyJSON) return json;
        if (json === null || typeof json !== 'object' || Array.isArray(json)) {
            throw unexpected(response.status, `${Array.isArray(json) ? 'an array' : String(json)} where a JSON object belongs`);
        }
        if (response.ok) return json;
        if (isErrorDictionary(json)) {
            const error = CKError.fromServer(json, response.status);
            if (error.ckErrorCode === ErrorCode.AUTHENTICATION_REQUIRED) {
                if (usedToken) this.webAuthToken = null;
                this.onAuthenticationRequired?.(error, usedToken);
            }
            throw error;
        }
        if (response.status === 400 && Array.isArray(json.records)) return json; // a failed atomic batch
        throw unexpected(response.status, 'an error without a serverErrorCode');
    }
}

function unexpected(status, what) {
    return new CKError(ErrorCode.UNEXPECTED_SERVER_RESPONSE,
        `the server answered HTTP ${status} with ${what}; is serverURL the address of a Stratus server?`, {httpStatus: status});
}
