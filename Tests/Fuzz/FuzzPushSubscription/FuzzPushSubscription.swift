// libFuzzer entry: the body a browser posts to subscribe to Web Push (`endpoint`, `p256dh`, `auth`, URL-encoded),
// through what the route does before it asks the network anything: the form, then the subscription's checks. What
// is accepted must be usable: its keys decode, and a push can be encrypted for it and opened by nobody else.
@testable import MicroHTTP
import ParlorPush

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPushSubscription(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let body = Array(UnsafeBufferPointer(start: data, count: size))
    guard let form = try? FormParser.parse(body, as: .urlencoded) else { return 0 }
    let value = { (name: String) in form.fields.first { $0.name == name }?.value ?? "" }
    let fields: SubscriptionFields
    do {
        fields = try SubscriptionFields(endpoint: value("endpoint"), p256dh: value("p256dh"), auth: value("auth"))
    } catch {
        precondition(!error.description.isEmpty)
        return 0
    }
    precondition(fields.endpoint.utf8.count <= SubscriptionFields.endpointLimit)
    precondition(fields.endpoint.lowercased().hasPrefix("http"), "a web address")
    guard let subscriber = try? WebPushEncryption.Subscriber(p256dh: fields.p256dh, auth: fields.auth) else {
        preconditionFailure("accepted keys are keys")
    }
    precondition(subscriber.publicKey.count == 65 && subscriber.authSecret.count == 16)
    let sealed = try? WebPushEncryption.encrypt(Array("{}".utf8), to: subscriber)
    precondition(sealed != nil, "a push can be encrypted for an accepted subscription")
    return 0
}
