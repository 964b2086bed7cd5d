import Testing

@testable import Outbox
