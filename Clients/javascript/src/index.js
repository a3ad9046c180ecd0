import * as constants from './constants.js';
import {CKError, configurationError} from './errors.js';
import {Transport} from './transport.js';
import {Container} from './container.js';
import {Database} from './database.js';
import {RecordsBatchBuilder} from './batch.js';
import {CKNotification} from './notifications.js';
import {localStorageTokenStore, memoryTokenStore} from './auth.js';
import {DatabaseChangesResponse, QueryResponse, RecordsResponse, RecordZoneChangesResponse, Response} from './responses.js';

// The CloudKit namespace: configure() and the container getters, the constants, and the classes.

export const VERSION = '1.0.0';
let containers = [];

const ENVIRONMENTS = ['development', 'production'];

function serverURLOf(value) {
    const url = value ?? (typeof location !== 'undefined' && /^https?:$/.test(location.protocol) ? location.origin : undefined);
    if (!url) throw configurationError('give serverURL, the Stratus server\'s address (e.g. serverURL: "https://cloud.example.com") in CloudKit.configure');
    if (!/^https?:\/\/[^/]+/.test(url)) throw configurationError(`serverURL ${JSON.stringify(url)} is not an http:// or https:// address`);
    return url.replace(/\/+$/, '');
}

// localStorage when the page may use it (a sandboxed frame or blocked storage throws on access):
// else the session lasts as long as the page.
function browserStorage(logger) {
    try {
        return typeof localStorage !== 'undefined' && localStorage !== null;
    } catch (error) {
        logger?.warn?.(`CloudKit: persist is on, but this page cannot use localStorage (${error.message}); the session ends with the page`);
        return false;
    }
}

function containerOf(entry, index, config, services) {
    const path = `containers[${index}]`;
    if (!entry || typeof entry.containerIdentifier !== 'string' || !entry.containerIdentifier) {
        throw configurationError(`${path} has no containerIdentifier`);
    }
    const environment = entry.environment ?? 'development';
    if (!ENVIRONMENTS.includes(environment)) throw configurationError(`${path}.environment is ${JSON.stringify(environment)}; use 'development' or 'production'`);
    const tokenAuth = entry.apiTokenAuth || {};
    const legacyAuth = entry.auth || {};
    const apiToken = tokenAuth.apiToken ?? entry.apiToken;
    const keyAuth = entry.serverToServerKeyAuth;
    if (keyAuth && (!keyAuth.keyID || (keyAuth.privateKey === undefined && !keyAuth.privateKeyFile))) {
        throw configurationError(`${path}.serverToServerKeyAuth needs keyID and privateKey or privateKeyFile`);
    }
    if (!apiToken && !keyAuth) throw configurationError(`${path} needs apiTokenAuth.apiToken or serverToServerKeyAuth`);
    const persist = tokenAuth.persist ?? legacyAuth.persist ?? false;
    let tokenStore = services.authTokenStore;
    if (!tokenStore) {
        tokenStore = persist && browserStorage(services.logger) ? localStorageTokenStore(localStorage) : memoryTokenStore();
    } else if (typeof tokenStore.getToken !== 'function' || typeof tokenStore.putToken !== 'function') {
        throw configurationError('services.authTokenStore needs getToken(containerIdentifier) and putToken(containerIdentifier, token)');
    }
    const fetchFunction = services.fetch ?? globalThis.fetch;
    if (typeof fetchFunction !== 'function') throw configurationError('no fetch: give services.fetch, or use Node 18+ or a current browser');
    const button = (spec, id) => (spec === undefined ? {id} : spec === null ? undefined : {id, ...spec});
    const settings = {
        containerIdentifier: entry.containerIdentifier,
        environment,
        apnsEnvironment: entry.apnsEnvironment ?? environment,
        apiToken,
        signInButton: button(tokenAuth.signInButton ?? legacyAuth.signInButton, 'apple-sign-in-button'),
        signOutButton: button(tokenAuth.signOutButton ?? legacyAuth.signOutButton, 'apple-sign-out-button'),
        notificationTransport: entry.notificationTransport ?? config.notificationTransport,
    };
    const transport = new Transport({
        serverURL: serverURLOf(entry.serverURL ?? config.serverURL),
        containerIdentifier: entry.containerIdentifier,
        environment,
        apiToken,
        keyAuth: apiToken ? undefined : keyAuth,
        fetch: fetchFunction,
        logger: services.logger,
        tokenStore,
        maxRetries: entry.maxRetries ?? config.maxRetries ?? 3,
        maxRetryDelay: entry.maxRetryDelay ?? config.maxRetryDelay ?? 60,
    });
    return new Container(settings, transport);
}

export function configure(config) {
    if (!config || !Array.isArray(config.containers) || !config.containers.length) {
        throw configurationError('CloudKit.configure needs {containers: [{containerIdentifier, apiTokenAuth: {apiToken}, environment}]}');
    }
    const services = config.services || {};
    containers = config.containers.map((entry, index) => containerOf(entry, index, config, services));
    return CloudKit;
}

export function getDefaultContainer() {
    if (!containers.length) throw configurationError('call CloudKit.configure before getDefaultContainer');
    return containers[0];
}

export function getContainer(containerIdentifier) {
    const container = containers.find((each) => each.containerIdentifier === containerIdentifier);
    if (!container) throw configurationError(`container ${containerIdentifier} is not configured; add it to CloudKit.configure's containers`);
    return container;
}

export function getAllContainers() { return containers.slice(); }

export const {QueryFilterComparator, ReferenceAction, DatabaseScope, SubscriptionType, NotificationType,
    QueryNotificationReason, ShareParticipantAcceptanceStatus, ShareParticipantPermission, ShareParticipantType,
    AppleIDButtonTheme} = constants;

// CloudKit.CKError is both the error class and, as in CloudKit JS, the holder of the codes
// (CloudKit.CKError.NOT_FOUND).
Object.assign(CKError, constants.ErrorCode);
export {CKError, Container, Database, RecordsBatchBuilder, CKNotification as Notification,
    Response, RecordsResponse, QueryResponse, RecordZoneChangesResponse, DatabaseChangesResponse};

export const CloudKit = {
    VERSION, configure, getDefaultContainer, getContainer, getAllContainers,
    QueryFilterComparator, ReferenceAction, DatabaseScope, SubscriptionType, NotificationType, QueryNotificationReason,
    ShareParticipantAcceptanceStatus, ShareParticipantPermission, ShareParticipantType, AppleIDButtonTheme,
    CKError, Container, Database, RecordsBatchBuilder, Notification: CKNotification,
    Response, RecordsResponse, QueryResponse, RecordZoneChangesResponse, DatabaseChangesResponse,
};
export default CloudKit;
