import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The recording delegate for an app delegate that takes download callbacks. A separate class:
/// the session decides whether its delegate handles downloads by a cast, so a wrapper must claim
/// to be a download delegate only when the app's delegate is one.
// @unchecked Sendable: no state of its own; see URLSessionRecordingDelegate (its `Mutex`).
final class URLSessionRecordingDownloadDelegate: URLSessionRecordingDelegate, URLSessionDownloadDelegate,
    @unchecked Sendable
{
    private var downloadDelegate: (any URLSessionDownloadDelegate)? { wrapped as? any URLSessionDownloadDelegate }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        _ = update(downloadTask) { _ in () }
        downloadDelegate?.urlSession(session, downloadTask: downloadTask, didFinishDownloadingTo: location)
    }

    func urlSession(
        _ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64
    ) {
        let (taskID, isDue) = update(downloadTask) { recording -> Bool in
            recording.receivedBytes = totalBytesWritten
            let isDue = URLSessionTaskRecording.isProgressDue(
                completed: totalBytesWritten, total: totalBytesExpectedToWrite, logged: recording.receivedBytesLogged)
            if isDue { recording.receivedBytesLogged = totalBytesWritten }
            return isDue
        }
        if isDue { logger.logProgress(taskID: taskID, completed: totalBytesWritten, total: totalBytesExpectedToWrite) }
        downloadDelegate?.urlSession(
            session, downloadTask: downloadTask, didWriteData: bytesWritten, totalBytesWritten: totalBytesWritten,
            totalBytesExpectedToWrite: totalBytesExpectedToWrite)
    }

    func urlSession(
        _ session: URLSession, downloadTask: URLSessionDownloadTask, didResumeAtOffset fileOffset: Int64,
        expectedTotalBytes: Int64
    ) {
        downloadDelegate?.urlSession(
            session, downloadTask: downloadTask, didResumeAtOffset: fileOffset, expectedTotalBytes: expectedTotalBytes)
    }
}
