// Smoke tests that prove each harness server and TLS scenario answers.
import Testing
import AFTestHarness
