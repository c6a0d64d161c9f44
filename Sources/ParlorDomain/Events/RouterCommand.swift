/// The router's command under way in this task, if any: what a store can ask to tell a write the router asked for
/// from one that went around it (the tests fail on those: nothing but the router writes).
public enum RouterCommand {
    /// The store operation the router is applying ("send", "end_session"); nil outside the router.
    @TaskLocal public static var current: String?
}
