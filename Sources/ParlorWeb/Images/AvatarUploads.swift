import Foundation
import Logging
import ParlorDomain
import MicroHTTP
import ParlorImages

/// A face uploaded for someone (a person in their settings, a bot by an administrator): processed by the image service
/// (accepted by its bytes, upright, stripped, squared), its files written to the media folder, ready for the profile
/// change that records it.
struct AvatarUploads: Sendable {
    let images: any ImageService
    let media: MediaFolder
    let logger: Logger

    /// Why an upload is no face: words for the form, and the status.
    struct Refused: Error {
        let message: String
        let status: HTTPStatus
    }

    func avatar(for owner: UserID, upload path: String, at date: Date, requestID: String) async throws(Refused) -> NewImage {
        let processed: ProcessedImage
        do {
            processed = try await images.process(file: path, for: .avatar)
        } catch {
            logger.info("photo refused", metadata: ["request": "\(requestID)", "why": "\(error)"])
            throw Refused(message: error.message, status: error.httpStatus)
        }
        do {
            return NewImage(ownerID: owner, purpose: .avatar, versions: try media.store(processed.versions), createdAt: date)
        } catch {
            logger.error("media folder refused a write", metadata: ["request": "\(requestID)", "error": "\(error)"])
            throw Refused(message: Refusal.unavailable.message, status: .serviceUnavailable)
        }
    }
}
