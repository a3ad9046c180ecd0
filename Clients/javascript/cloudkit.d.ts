// TypeScript declarations for the Stratus CloudKit JS SDK (dist/cloudkit.mjs, dist/cloudkit.js).
// Names and shapes follow Apple's CloudKit JS; Stratus additions are marked "Stratus".

declare namespace CloudKit {
    type Environment = 'development' | 'production';
    type DatabaseScopeName = 'PUBLIC' | 'PRIVATE' | 'SHARED';

    interface ButtonConfig { id: string; theme?: string }
    interface AuthTokenStore {
        getToken(containerIdentifier: string): string | null | undefined;
        putToken(containerIdentifier: string, token: string | null): void;
    }
    interface Logger { info?(...a: unknown[]): void; log?(...a: unknown[]): void; warn?(...a: unknown[]): void; error?(...a: unknown[]): void }
    interface ContainerConfig {
        containerIdentifier: string;
        environment?: Environment;
        apnsEnvironment?: Environment;
        apiTokenAuth?: {apiToken: string; persist?: boolean; signInButton?: ButtonConfig | null; signOutButton?: ButtonConfig | null};
        serverToServerKeyAuth?: {keyID: string; privateKey?: string; privateKeyFile?: string; actAsUserRecordName?: string};
        /** Stratus: the server's address, e.g. "https://cloud.example.com" (overrides CloudKitConfig.serverURL). */
        serverURL?: string;
        /** Stratus: 'sse' (Server-Sent Events) or 'longpoll'; default: SSE where EventSource exists. */
        notificationTransport?: 'sse' | 'longpoll';
        maxRetries?: number;
        maxRetryDelay?: number;
    }
    interface CloudKitConfig {
        containers: ContainerConfig[];
        services?: {fetch?: typeof fetch; logger?: Logger; authTokenStore?: AuthTokenStore};
        /** Stratus: the server's address for every container; in a browser, the page's origin by default. */
        serverURL?: string;
        /** Stratus: retries of THROTTLED / TRY_AGAIN_LATER answers (default 3), waiting retryAfter each time. */
        maxRetries?: number;
        /** Stratus: the longest wait between retries, in seconds (default 60). */
        maxRetryDelay?: number;
        notificationTransport?: 'sse' | 'longpoll';
    }

    interface ZoneID { zoneName: string; ownerRecordName?: string }
    type ZoneIDLike = string | ZoneID | {zoneID: ZoneID};
    interface Reference { recordName: string; zoneID?: ZoneID; action?: keyof typeof ReferenceAction }
    interface Location {
        latitude: number; longitude: number; horizontalAccuracy?: number; verticalAccuracy?: number;
        altitude?: number; speed?: number; course?: number; timestamp?: number;
    }
    interface Asset { fileChecksum?: string; size?: number; receipt?: string; wrappingKey?: string; referenceChecksum?: string; downloadURL?: string }
    type AssetSource = Blob | ArrayBuffer | ArrayBufferView;
    type Scalar = string | number | Date | Reference | Location | Asset | AssetSource;
    type FieldValue = Scalar | Scalar[] | null;
    interface Field { value: FieldValue; type?: string }
    interface RecordStamp { timestamp: number; userRecordName?: string; deviceID?: string }
    interface Record {
        recordName?: string;
        recordType?: string;
        recordChangeTag?: string;
        zoneID?: ZoneIDLike;
        fields?: {[name: string]: Field | FieldValue};
        created?: RecordStamp;
        modified?: RecordStamp;
        deleted?: boolean;
        parent?: Reference | null;
        share?: Reference;
        [key: string]: unknown;
    }
    interface Filter {
        comparator: keyof typeof QueryFilterComparator;
        fieldName?: string;
        systemFieldName?: string;
        fieldValue?: Field | FieldValue;
        distance?: number;
    }
    interface Sort { fieldName?: string; systemFieldName?: string; ascending?: boolean; relativeLocation?: Location }
    /** Stratus extension: OR (`anyOf`), AND (`allOf`) or NOT (`not`) of filters and groups, nested at most 4 deep. */
    type FilterGroup = { anyOf: Array<Filter | FilterGroup> } | { allOf: Array<Filter | FilterGroup> } | { not: Filter | FilterGroup };
    interface Query { recordType: string; filterBy?: Array<Filter | FilterGroup>; sortBy?: Sort[] }
    interface CountOptions { zoneID?: ZoneIDLike; zoneWide?: boolean }
    interface QueryOptions { zoneID?: ZoneIDLike; resultsLimit?: number; desiredKeys?: string[]; zoneWide?: boolean; numbersAsStrings?: boolean }
    interface RecordOptions { zoneID?: ZoneIDLike; desiredKeys?: string[]; numbersAsStrings?: boolean; atomic?: boolean }
    interface RecordZone { zoneID: ZoneID; atomic?: boolean; deleted?: boolean }
    interface RecordZoneChangesOptions {
        zoneID: ZoneIDLike; syncToken?: string; resultsLimit?: number; desiredKeys?: string[]; desiredRecordTypes?: string[];
    }
    interface RecordZoneChanges { zoneID: ZoneID; records: Record[]; syncToken: string; moreComing: boolean }
    interface Subscription {
        subscriptionID?: string;
        subscriptionType: 'query' | 'zone' | 'database';
        query?: Query;
        firesOn?: Array<'create' | 'update' | 'delete'>;
        firesOnce?: boolean;
        zoneID?: ZoneIDLike;
        zoneWide?: boolean;
        notificationInfo?: {[key: string]: unknown};
    }
    interface UserIdentity {
        userRecordName: string;
        nameComponents: {givenName?: string; familyName?: string; [key: string]: unknown};
        lookupInfo?: {emailAddress?: string; phoneNumber?: string; userRecordName?: string};
        emailAddress?: string;
        isDiscoverable?: boolean;
    }

    class CKError extends Error {
        readonly isError: true;
        readonly isCKError: true;
        ckErrorCode: string;
        isServerError: boolean;
        serverErrorCode?: string;
        reason: string;
        retryAfter?: number;
        recordName?: string;
        subscriptionID?: string;
        zoneID?: ZoneID;
        redirectURL?: string;
        uuid?: string;
        serverRecord?: Record;
        httpStatus?: number;
        static readonly [code: string]: unknown;
    }

    class Response {
        containerIdentifier: string;
        databaseScope?: DatabaseScopeName;
        errors: CKError[];
        readonly hasErrors: boolean;
    }
    class RecordsResponse extends Response { records: Record[] }
    class QueryResponse extends RecordsResponse { query: Query; continuationMarker?: string; moreComing: boolean }
    class RecordZoneChangesResponse extends Response { zones: RecordZoneChanges[] }
    class DatabaseChangesResponse extends Response { zones: RecordZone[]; syncToken: string; moreComing: boolean }
    interface ZonesResponse extends Response { zones: RecordZone[] }
    interface SubscriptionsResponse extends Response { subscriptions: Subscription[] }
    interface UserIdentitiesResponse extends Response { users: UserIdentity[] }
    interface ShareMetadataResponse extends Response { results: Array<{[key: string]: unknown}> }

    class Notification {
        notificationID: string;
        notificationType: 'query' | 'recordZone' | 'database';
        containerIdentifier: string;
        subscriptionID: string;
        zoneID?: ZoneID;
        databaseScope?: DatabaseScopeName;
        isPruned: boolean;
        alertBody?: string; alertLocalizationKey?: string; alertLocalizationArgs?: string[];
        alertActionLocalizationKey?: string; alertLaunchImage?: string; title?: string; subtitle?: string;
        badge?: number; soundName?: string; category?: string;
        recordName?: string;
        queryNotificationReason?: 'RECORD_CREATED' | 'RECORD_UPDATED' | 'RECORD_DELETED';
        recordFields?: {[name: string]: unknown};
        isPublicDatabase?: boolean;
        payload: unknown;
    }

    class RecordsBatchBuilder {
        create(records: Record | Record[]): this;
        update(records: Record | Record[]): this;
        forceUpdate(records: Record | Record[]): this;
        replace(records: Record | Record[]): this;
        forceReplace(records: Record | Record[]): this;
        delete(records: Record | string | Array<Record | string>): this;
        forceDelete(records: Record | string | Array<Record | string>): this;
        commit(options?: RecordOptions): Promise<RecordsResponse>;
    }

    class Database {
        readonly containerIdentifier: string;
        readonly databaseScope: DatabaseScopeName;
        performQuery(query: Query | QueryResponse, options?: QueryOptions): Promise<QueryResponse>;
        /** Stratus extension (records/count): how many records the query returns to this caller. */
        countRecords(query: Query, options?: CountOptions): Promise<number>;
        fetchRecords(records: string | Record | Array<string | Record>, options?: RecordOptions): Promise<RecordsResponse>;
        saveRecords(records: Record | Record[], options?: RecordOptions): Promise<RecordsResponse>;
        deleteRecords(records: string | Record | Array<string | Record>, options?: RecordOptions): Promise<RecordsResponse>;
        newRecordsBatch(zoneID?: ZoneIDLike): RecordsBatchBuilder;
        fetchAllRecordZones(): Promise<ZonesResponse>;
        fetchRecordZones(zoneIDs: ZoneIDLike | ZoneIDLike[]): Promise<ZonesResponse>;
        saveRecordZones(zones: ZoneIDLike | ZoneIDLike[]): Promise<ZonesResponse>;
        deleteRecordZones(zoneIDs: ZoneIDLike | ZoneIDLike[]): Promise<ZonesResponse>;
        fetchDatabaseChanges(options?: {syncToken?: string; resultsLimit?: number} | string): Promise<DatabaseChangesResponse>;
        fetchRecordZoneChanges(options: RecordZoneChangesOptions | RecordZoneChangesOptions[]): Promise<RecordZoneChangesResponse>;
        fetchAllSubscriptions(): Promise<SubscriptionsResponse>;
        fetchSubscriptions(subscriptionIDs: string | string[]): Promise<SubscriptionsResponse>;
        saveSubscriptions(subscriptions: Subscription | Subscription[]): Promise<SubscriptionsResponse>;
        deleteSubscriptions(subscriptionIDs: string | string[]): Promise<SubscriptionsResponse>;
    }

    class Container {
        readonly containerIdentifier: string;
        readonly environment: Environment;
        readonly apnsEnvironment: Environment;
        readonly publicCloudDatabase: Database;
        readonly privateCloudDatabase: Database;
        readonly sharedCloudDatabase: Database;
        userIdentity?: UserIdentity | null;
        readonly isRegisteredForNotifications: boolean;
        getDatabaseWithDatabaseScope(scope: DatabaseScopeName): Database;
        setUpAuth(): Promise<UserIdentity | null>;
        whenUserSignsIn(): Promise<UserIdentity>;
        whenUserSignsOut(): Promise<void>;
        /** Stratus: ends the session on the server, as the sign-out button does. */
        signOut(): Promise<void>;
        /** Stratus: calls a server function of an app's own Stratus server with `input` as JSON; resolves with its JSON answer. */
        callFunction<Output = unknown>(name: string, input?: unknown): Promise<Output>;
        fetchCurrentUserIdentity(): Promise<UserIdentity>;
        discoverAllUserIdentities(): Promise<UserIdentitiesResponse>;
        discoverUserIdentities(lookupInfos: Array<{emailAddress?: string; phoneNumber?: string; userRecordName?: string}>): Promise<UserIdentitiesResponse>;
        discoverUserIdentityWithEmailAddress(emailAddress: string): Promise<UserIdentity | null>;
        discoverUserIdentityWithPhoneNumber(phoneNumber: string): Promise<UserIdentity | null>;
        discoverUserIdentityWithUserRecordName(userRecordName: string): Promise<UserIdentity | null>;
        registerForNotifications(): Promise<Container>;
        unregisterForNotifications(): Promise<Container>;
        addNotificationListener(listener: (notification: Notification) => void): void;
        removeNotificationListener(listener: (notification: Notification) => void): void;
        acceptShares(shortGUIDs: string | string[]): Promise<ShareMetadataResponse>;
        fetchShareMetadata(shortGUIDs: string | string[], options?: {shouldFetchRootRecord?: boolean; rootRecordDesiredKeys?: string[]}): Promise<ShareMetadataResponse>;
    }

    const VERSION: string;
    function configure(config: CloudKitConfig): typeof CloudKit;
    function getDefaultContainer(): Container;
    function getContainer(containerIdentifier: string): Container;
    function getAllContainers(): Container[];

    const QueryFilterComparator: {readonly [K in 'EQUALS' | 'NOT_EQUALS' | 'LESS_THAN' | 'LESS_THAN_OR_EQUALS' | 'GREATER_THAN' |
        'GREATER_THAN_OR_EQUALS' | 'NEAR' | 'CONTAINS_ALL_TOKENS' | 'CONTAINS_ANY_TOKENS' | 'IN' | 'NOT_IN' | 'BEGINS_WITH' |
        'NOT_BEGINS_WITH' | 'LIST_CONTAINS' | 'NOT_LIST_CONTAINS' | 'LIST_CONTAINS_ANY' | 'NOT_LIST_CONTAINS_ANY' |
        'LIST_CONTAINS_ALL' | 'NOT_LIST_CONTAINS_ALL' | 'LIST_MEMBER_BEGINS_WITH' | 'NOT_LIST_MEMBER_BEGINS_WITH']: K};
    const ReferenceAction: {readonly NONE: 'NONE'; readonly DELETE_SELF: 'DELETE_SELF'; readonly VALIDATE: 'VALIDATE'};
    const DatabaseScope: {readonly PUBLIC: 'PUBLIC'; readonly PRIVATE: 'PRIVATE'; readonly SHARED: 'SHARED'};
    const SubscriptionType: {readonly QUERY: 'query'; readonly ZONE: 'zone'; readonly DATABASE: 'database'};
    const NotificationType: {readonly QUERY: 'query'; readonly RECORD_ZONE: 'recordZone'; readonly DATABASE: 'database'};
    const QueryNotificationReason: {readonly RECORD_CREATED: 'RECORD_CREATED'; readonly RECORD_UPDATED: 'RECORD_UPDATED'; readonly RECORD_DELETED: 'RECORD_DELETED'};
    const ShareParticipantAcceptanceStatus: {readonly [K in 'UNKNOWN' | 'PENDING' | 'ACCEPTED' | 'REMOVED']: K};
    const ShareParticipantPermission: {readonly [K in 'UNKNOWN' | 'NONE' | 'READ_ONLY' | 'READ_WRITE']: K};
    const ShareParticipantType: {readonly [K in 'OWNER' | 'PRIVATE_USER' | 'PUBLIC_USER']: K};
    const AppleIDButtonTheme: {readonly [K in 'BLACK' | 'WHITE' | 'WHITE_WITH_OUTLINE']: K};
}

// `import CloudKit from '…/cloudkit.mjs'` (with esModuleInterop), named imports, or the global
// CloudKit of the classic script.
export = CloudKit;
export as namespace CloudKit;
