// Where the app's container lives. Set apiToken to the token `stratus serve` printed on its first
// start, and allow this page's origin for it:
//   stratus token origins TOKEN --container iCloud.dev.stratus.default --origin http://127.0.0.1:8000
// For trying the page against another server, ?server=…&apiToken=… in its address override these.
window.NOTES_CONFIG = {
    serverURL: 'http://127.0.0.1:8080',
    containerIdentifier: 'iCloud.dev.stratus.default',
    apiToken: 'paste the API token here',
};
