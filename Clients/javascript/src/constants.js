// The constants CloudKit JS puts on its namespace (CloudKit.QueryFilterComparator.EQUALS and so on).
// Each value is the string the CloudKit Web Services protocol uses, so it can go straight into a request.

const names = (list) => Object.freeze(Object.fromEntries(list.split(' ').map((name) => [name, name])));

export const QueryFilterComparator = names(
    'EQUALS NOT_EQUALS LESS_THAN LESS_THAN_OR_EQUALS GREATER_THAN GREATER_THAN_OR_EQUALS NEAR ' +
    'CONTAINS_ALL_TOKENS CONTAINS_ANY_TOKENS IN NOT_IN BEGINS_WITH NOT_BEGINS_WITH ' +
    'LIST_CONTAINS NOT_LIST_CONTAINS LIST_CONTAINS_ANY NOT_LIST_CONTAINS_ANY LIST_CONTAINS_ALL ' +
    'NOT_LIST_CONTAINS_ALL LIST_MEMBER_BEGINS_WITH NOT_LIST_MEMBER_BEGINS_WITH');

export const ReferenceAction = names('NONE DELETE_SELF VALIDATE');

export const DatabaseScope = names('PUBLIC PRIVATE SHARED');

export const SubscriptionType = Object.freeze({QUERY: 'query', ZONE: 'zone', DATABASE: 'database'});

export const NotificationType = Object.freeze({QUERY: 'query', RECORD_ZONE: 'recordZone', DATABASE: 'database'});

export const QueryNotificationReason = names('RECORD_CREATED RECORD_UPDATED RECORD_DELETED');

export const ShareParticipantAcceptanceStatus = names('UNKNOWN PENDING ACCEPTED REMOVED');

export const ShareParticipantPermission = names('UNKNOWN NONE READ_ONLY READ_WRITE');

export const ShareParticipantType = names('OWNER PRIVATE_USER PUBLIC_USER');

export const AppleIDButtonTheme = names('BLACK WHITE WHITE_WITH_OUTLINE');

export const Environment = Object.freeze({DEVELOPMENT: 'development', PRODUCTION: 'production'});

// Error codes (CloudKit.CKError.X): the server's serverErrorCode values, and the ones this library
// raises itself (network, configuration, bad arguments, an answer it cannot read).
export const ErrorCode = names(
    'ACCESS_DENIED ATOMIC_ERROR AUTH_PERSIST_ERROR AUTHENTICATION_FAILED AUTHENTICATION_REQUIRED ' +
    'BAD_REQUEST CONFIGURATION_ERROR CONFLICT EXISTS INTERNAL_ERROR INVALID_ARGUMENTS NETWORK_ERROR ' +
    'NOT_FOUND NOT_IMPLEMENTED QUOTA_EXCEEDED SHARE_UI_TIMEOUT SIGN_IN_FAILED THROTTLED ' +
    'TRY_AGAIN_LATER UNEXPECTED_SERVER_RESPONSE UNIQUE_FIELD_ERROR UNKNOWN_ERROR ' +
    'VALIDATING_REFERENCE_ERROR ZONE_NOT_FOUND');

export const DEFAULT_ZONE = '_defaultZone';
