// Starts the real `stratus serve` ($STRATUS_BINARY) as a child process on a free port with a fresh
// data folder, and reads the first-run output: the API token and the developer's web auth token.
import {spawn, execFile} from 'node:child_process';
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {createInterface} from 'node:readline';
import {promisify} from 'node:util';

export const CONTAINER = 'iCloud.dev.stratus.default';

export function binary() {
    const path = process.env.STRATUS_BINARY;
    if (!path) throw new Error('set STRATUS_BINARY to the stratus executable (scripts/test-javascript BINARY does)');
    return path;
}

// `executable`: another build of the server (an app's own, made with StratusApp).
export async function startServer(extraArguments = [], executable = binary()) {
    const folder = mkdtempSync(join(tmpdir(), 'stratus-js-'));
    const data = join(folder, 'data');
    const child = spawn(executable, ['serve', '--port', '0', '--data', data, '--shutdown-timeout', '1', ...extraArguments], {stdio: ['ignore', 'pipe', 'pipe']});
    let log = '';
    child.stderr.on('data', (chunk) => { log = (log + chunk).slice(-20000); });
    const lines = {};
    await new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`stratus did not start listening within 60 s:\n${log}`)), 60000);
        child.on('exit', (code) => reject(new Error(`stratus exited with ${code} before listening:\n${log}`)));
        createInterface({input: child.stdout}).on('line', (line) => {
            for (const prefix of ['API token: ', 'web auth token (user developer): ', 'listening on ']) {
                if (line.startsWith(prefix)) lines[prefix] = line.slice(prefix.length).trim();
            }
            if (lines['listening on ']) { clearTimeout(timer); resolve(); }
        });
    });
    const server = {
        url: lines['listening on '],
        apiToken: lines['API token: '],
        developerToken: lines['web auth token (user developer): '],
        data,
        log: () => log,
        // A `stratus` command against this server's data folder; answers its standard output.
        async cli(...args) {
            const {stdout} = await promisify(execFile)(binary(), [...args, '--data', data]);
            return stdout.trim();
        },
        async createUser(name, options = []) {
            return JSON.parse(await server.cli('user', 'create', name, '--container', CONTAINER, ...options));
        },
        async stop() {
            if (child.exitCode === null) {
                child.kill('SIGTERM');
                await new Promise((resolve) => child.once('exit', resolve));
            }
            rmSync(folder, {recursive: true, force: true});
        },
    };
    return server;
}

// An authTokenStore holding one token, as an app that signed in earlier would have.
export function tokenStore(token) {
    const tokens = new Map([[CONTAINER, token]]);
    return {
        tokens,
        getToken: (id) => tokens.get(id) ?? null,
        putToken: (id, value) => { if (value) tokens.set(id, value); else tokens.delete(id); },
    };
}

// A fresh configured SDK (its own module instance, so tests do not share configuration).
let instance = 0;
export async function sdk(server, options = {}) {
    const token = 'token' in options ? options.token : server.developerToken;
    const {default: CloudKit} = await import(`../dist/cloudkit.mjs?instance=${instance++}`);
    CloudKit.configure({
        serverURL: server.url,
        containers: [{containerIdentifier: CONTAINER, apiTokenAuth: {apiToken: server.apiToken}, environment: 'development', ...options.container}],
        services: {authTokenStore: tokenStore(token), ...options.services},
        ...options.config,
    });
    return CloudKit;
}

export const unique = (prefix) => `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
