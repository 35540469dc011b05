// AFTestHarness: starts real servers (httpbin, nginx with TLS, fault endpoints) on free loopback ports.
