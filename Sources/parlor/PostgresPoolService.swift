import ParlorPostgres
import ServiceLifecycle

/// A PostgreSQL pool's connections, for as long as Parlor serves: started first, stopped last.
struct PostgresPoolService: Service {
    let database: PostgresDatabase

    func run() async throws {
        await database.run()
    }
}
