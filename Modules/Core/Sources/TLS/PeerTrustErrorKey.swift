/// userInfo key of a -1202 error holding the rejected `AFProtocols/ServerTrust` (the Linux stand-in for
/// `NSURLErrorFailingURLPeerTrustErrorKey`, whose string it uses).
public let peerTrustErrorKey = "NSURLErrorFailingURLPeerTrustErrorKey"
