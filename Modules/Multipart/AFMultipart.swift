// AFMultipart: the streaming multipart/form-data body, throttling and write-to-file.
// (The module's types land here; this file only names the module's purpose.)
