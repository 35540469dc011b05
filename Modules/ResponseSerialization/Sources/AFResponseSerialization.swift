// AFResponseSerialization: validation; JSON, XML (libxml2), property-list and compound response serializers.
// (The module's types land here; this file only names the module's purpose.)
