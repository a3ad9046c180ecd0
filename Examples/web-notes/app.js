// Notes: a static web app on the CloudKit JS API. Signs the user in through the server's sign-in
// window, lists their notes (private database) a page at a time, adds, edits (a note changed
// elsewhere since it was loaded is a conflict: the app shows the latest version), deletes, attaches
// images, and reloads when a notification says another tab or device changed something.
(function () {
    'use strict';

    var PAGE_SIZE = 5;
    var SUBSCRIPTION_ID = 'web-notes';
    var params = new URLSearchParams(location.search);
    var settings = window.NOTES_CONFIG;

    CloudKit.configure({
        serverURL: params.get('server') || settings.serverURL,
        containers: [{
            containerIdentifier: settings.containerIdentifier,
            apiTokenAuth: {
                apiToken: params.get('apiToken') || settings.apiToken,
                persist: true,
                signInButton: {id: 'sign-in-button'},
                signOutButton: {id: 'sign-out-button'}
            },
            environment: 'development'
        }]
    });

    var container = CloudKit.getDefaultContainer();
    var database = container.privateCloudDatabase;
    var $ = function (id) { return document.getElementById(id); };
    var lastPage = null;
    var loading = null;
    var signedInUser = null;

    function status(text, isError) {
        $('status').textContent = text;
        $('status').className = isError ? 'note-error' : '';
    }

    function failed(error) {
        status((error.ckErrorCode ? error.ckErrorCode + ': ' + error.reason : String(error)), true);
    }

    var QUERY = {recordType: 'Note', sortBy: [{systemFieldName: 'createdTimestamp', ascending: false}]};

    function loadNotes() {
        // A notification arriving mid-load loads once more afterwards.
        if (loading) { loading.again = true; return loading.promise; }
        loading = {again: false};
        loading.promise = database.performQuery(QUERY, {resultsLimit: PAGE_SIZE}).then(function (response) {
            if (response.hasErrors) throw response.errors[0];
            // A note being edited stays as it is, so a change from elsewhere does not throw the
            // edit away (saving it then meets the conflict).
            var editing = {};
            Array.prototype.forEach.call($('notes').querySelectorAll('li[data-editing]'), function (item) {
                editing[item.dataset.recordName] = item;
            });
            $('notes').textContent = '';
            showPage(response, editing);
            status(response.records.length ? '' : 'No notes yet.');
        }).catch(failed).then(function () {
            var again = loading.again;
            loading = null;
            if (again) return loadNotes();
        });
        return loading.promise;
    }

    function showPage(response, editing) {
        lastPage = response;
        response.records.forEach(function (record) {
            $('notes').appendChild((editing && editing[record.recordName]) || noteItem(record));
        });
        $('more').hidden = !response.moreComing;
    }

    function noteItem(record) {
        var item = document.createElement('li');
        item.dataset.recordName = record.recordName;
        fillItem(item, record);
        return item;
    }

    function fillItem(item, record, message) {
        item.textContent = '';
        delete item.dataset.editing;
        var title = document.createElement('div');
        title.className = 'note-title';
        title.textContent = record.fields.title ? record.fields.title.value : '';
        var body = document.createElement('div');
        body.className = 'note-body';
        body.textContent = record.fields.body ? record.fields.body.value : '';
        item.append(title, body);
        if (record.fields.image && record.fields.image.value.downloadURL) {
            var image = document.createElement('img');
            image.className = 'note-image';
            image.alt = 'image of ' + title.textContent;
            image.src = record.fields.image.value.downloadURL.replace('${f}', 'image');
            item.appendChild(image);
        }
        if (message) {
            var note = document.createElement('p');
            note.className = 'note-error';
            note.textContent = message;
            item.appendChild(note);
        }
        item.append(button('Edit', 'edit', function () { editItem(item, record); }),
            button('Delete', 'delete', function () { deleteNote(item, record); }));
    }

    function button(label, className, onClick) {
        var element = document.createElement('button');
        element.type = 'button';
        element.className = className;
        element.textContent = label;
        element.addEventListener('click', onClick);
        return element;
    }

    function editItem(item, record) {
        item.textContent = '';
        item.dataset.editing = 'true';
        var title = document.createElement('input');
        title.className = 'edit-title';
        title.setAttribute('aria-label', 'Title');
        title.value = record.fields.title ? record.fields.title.value : '';
        var body = document.createElement('textarea');
        body.className = 'edit-body';
        body.setAttribute('aria-label', 'Text');
        body.value = record.fields.body ? record.fields.body.value : '';
        item.append(title, body, button('Save', 'save', function () {
            // The record keeps its recordChangeTag, so the save fails with CONFLICT if the note
            // changed since it was loaded.
            var changed = {recordType: 'Note', recordName: record.recordName, recordChangeTag: record.recordChangeTag,
                fields: {title: {value: title.value}, body: {value: body.value}}};
            database.saveRecords(changed).then(function (response) {
                if (!response.hasErrors) return fillItem(item, response.records[0]);
                var error = response.errors[0];
                if (error.ckErrorCode !== CloudKit.CKError.CONFLICT) throw error;
                fillItem(item, error.serverRecord, 'This note changed elsewhere; here is the latest version. Edit it again to change it.');
            }).catch(failed);
        }), button('Cancel', 'cancel', function () { fillItem(item, record); }));
    }

    function deleteNote(item, record) {
        database.deleteRecords({recordName: record.recordName, recordChangeTag: record.recordChangeTag}).then(function (response) {
            if (!response.hasErrors) return item.remove();
            var error = response.errors[0];
            if (error.ckErrorCode !== CloudKit.CKError.CONFLICT) throw error;
            fillItem(item, error.serverRecord, 'This note changed elsewhere and was not deleted.');
        }).catch(failed);
    }

    $('new-note').addEventListener('submit', function (event) {
        event.preventDefault();
        var fields = {title: {value: $('new-title').value}, body: {value: $('new-body').value}};
        var file = $('new-image').files[0];
        if (file) fields.image = {value: file};
        status('Saving…');
        database.saveRecords({recordType: 'Note', fields: fields}).then(function (response) {
            if (response.hasErrors) throw response.errors[0];
            $('new-note').reset();
            return loadNotes();
        }).catch(failed);
    });

    $('more').addEventListener('click', function () {
        database.performQuery(lastPage).then(function (response) {
            if (response.hasErrors) throw response.errors[0];
            showPage(response);
        }).catch(failed);
    });

    // One subscription per user; every tab registers for notifications and reloads on each one.
    function watchForChanges() {
        return database.fetchSubscriptions([SUBSCRIPTION_ID]).then(function (response) {
            if (!response.hasErrors) return;
            return database.saveSubscriptions({
                subscriptionID: SUBSCRIPTION_ID,
                subscriptionType: CloudKit.SubscriptionType.QUERY,
                query: {recordType: 'Note'},
                firesOn: ['create', 'update', 'delete'],
                notificationInfo: {shouldSendContentAvailable: true}
            });
        }).then(function () {
            return container.registerForNotifications();
        });
    }

    container.addNotificationListener(function (notification) {
        if (notification.subscriptionID === SUBSCRIPTION_ID && signedInUser) loadNotes();
    });

    function signedIn(userIdentity) {
        signedInUser = userIdentity;
        var name = userIdentity.nameComponents;
        $('user').textContent = (name && (name.givenName || name.familyName)) ? [name.givenName, name.familyName].join(' ').trim()
            : (userIdentity.lookupInfo && userIdentity.lookupInfo.emailAddress) || 'Signed in';
        $('new-note').hidden = false;
        container.whenUserSignsOut().then(signedOut);
        return loadNotes().then(watchForChanges).then(function () {
            document.body.dataset.ready = 'true';
        }).catch(failed);
    }

    function signedOut() {
        signedInUser = null;
        $('user').textContent = '';
        $('new-note').hidden = true;
        $('notes').textContent = '';
        $('more').hidden = true;
        document.body.dataset.ready = 'false';
        container.unregisterForNotifications();
        status('Sign in to see your notes.');
        container.whenUserSignsIn().then(signedIn).catch(failed);
    }

    container.setUpAuth().then(function (userIdentity) {
        if (userIdentity) signedIn(userIdentity); else signedOut();
    }).catch(failed);
})();
