// The event core's tests.
