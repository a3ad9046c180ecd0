import {ErrorCode} from './constants.js';

// CloudKit.CKError: what every rejected promise carries, and what a response lists in `errors` for
// each item that failed. A server error keeps the server's code as both serverErrorCode and
// ckErrorCode (as CloudKit JS does); a code this library does not know becomes UNKNOWN_ERROR with
// the server's code kept in serverErrorCode.
export class CKError extends Error {
    constructor(ckErrorCode, reason, details = {}) {
        super(`${ckErrorCode}: ${reason}`);
        this.name = 'CKError';
        this.ckErrorCode = ckErrorCode;
        this.reason = reason;
        this.isServerError = false;
        this.serverErrorCode = undefined;
        Object.assign(this, details);
    }

    get isError() { return true; }
    get isCKError() { return true; }

    // A CKError from an error dictionary of the server (a whole request's or one item's).
    static fromServer(dictionary, httpStatus) {
        const code = dictionary.serverErrorCode;
        const error = new CKError(ErrorCode[code] ? code : ErrorCode.UNKNOWN_ERROR,
            dictionary.reason || `the server answered ${code} without a reason`);
        error.isServerError = true;
        error.serverErrorCode = code;
        for (const key of ['uuid', 'retryAfter', 'redirectURL', 'recordName', 'zoneID', 'subscriptionID', 'shortGUID']) {
            if (dictionary[key] !== undefined) error[key] = dictionary[key];
        }
        if (httpStatus !== undefined) error.httpStatus = httpStatus;
        return error;
    }
}

export const invalidArguments = (reason) => new CKError(ErrorCode.INVALID_ARGUMENTS, reason);
export const configurationError = (reason) => new CKError(ErrorCode.CONFIGURATION_ERROR, reason);

export const isErrorDictionary = (item) => item !== null && typeof item === 'object' && typeof item.serverErrorCode === 'string';
