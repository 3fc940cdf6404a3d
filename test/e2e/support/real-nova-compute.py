"""A stand-in for nova-compute, for the end-to-end tests of vconsole against Nova's real console
proxies (test/e2e/support/real-nova.ts starts it).

The proxies (nova-novncproxy, nova-serialproxy, nova-spicehtml5proxy) accept a console only when
its token is a row of Nova's database, its instance exists, and the instance's compute host
answers the `validate_console_port` RPC. This process is that host: it creates instances with
Nova's own objects, serves the RPC over oslo.messaging as nova-compute does, and mints tokens
exactly as nova-compute does (ConsoleAuthToken.authorize with [consoleauth] token_ttl), so
the proxies run unmodified. The test drives it over a small JSON API on loopback, whose port
it prints as its first line of stdout: `control-port PORT`.

Run with Debian's /usr/bin/python3 (python3-nova): real-nova-compute.py --config-file nova.conf
"""

import eventlet
import eventlet.wsgi

eventlet.monkey_patch()

import json  # noqa: E402
import sys  # noqa: E402

import oslo_messaging as messaging  # noqa: E402

import nova.conf  # noqa: E402
from nova import config  # noqa: E402
from nova import context as nova_context  # noqa: E402
from nova import exception  # noqa: E402
from nova import objects  # noqa: E402
from nova import rpc  # noqa: E402
from nova.objects import base as objects_base  # noqa: E402

CONF = nova.conf.CONF
HOST = 'vconsole-e2e-compute'
# The console ports of each instance, by uuid and Nova console type: what the RPC compares.
CONSOLE_PORTS = {}
BASE_URLS = {}
# How often a proxy asked, by console type: a proxy that asked is ready for tokens.
VALIDATIONS = {}


class ComputeStandIn(object):
    """The one RPC method a console proxy calls, with nova-compute's own comparison."""

    target = messaging.Target(version='6.1')

    def validate_console_port(self, ctxt, instance, port, console_type):
        VALIDATIONS[console_type] = VALIDATIONS.get(console_type, 0) + 1
        ports = CONSOLE_PORTS.get(instance.uuid, {})
        return str(ports.get(console_type)) == port


def create_instance(body):
    ctxt = nova_context.get_admin_context()
    instance = objects.Instance(
        context=ctxt,
        host=HOST,
        node=HOST,
        display_name=body['name'],
        project_id='vconsole-e2e',
        user_id='vconsole-e2e',
        vm_state='active',
        power_state=1,
    )
    instance.create()
    CONSOLE_PORTS[instance.uuid] = {key: value for key, value in body.get('ports', {}).items() if value}
    return {'uuid': instance.uuid}


def create_console(body):
    """What nova-compute's get_vnc_console/get_serial_console/get_spice_console do."""
    ctxt = nova_context.get_admin_context()
    console_type = body['type']
    port = CONSOLE_PORTS[body['uuid']][console_type]
    token = objects.ConsoleAuthToken(
        context=ctxt,
        console_type=console_type,
        host='127.0.0.1',
        port=port,
        internal_access_path=None,
        instance_uuid=body['uuid'],
        access_url_base=BASE_URLS[console_type],
    )
    token.authorize(body.get('ttl', CONF.consoleauth.token_ttl))
    return {'url': token.access_url, 'token': token.token}


def set_port(body):
    """The instance's console moves (or goes away, port None): the RPC answers accordingly."""
    ports = CONSOLE_PORTS[body['uuid']]
    if body.get('port'):
        ports[body['type']] = body['port']
    else:
        ports.pop(body['type'], None)
    return {}


def token_valid(body):
    """The proxies' own first check (ConsoleAuthToken.validate: the hash is a row, not expired)."""
    try:
        objects.ConsoleAuthToken.validate(nova_context.get_admin_context(), body['token'])
        return {'valid': True}
    except exception.InvalidToken:
        return {'valid': False}


def validations(_body):
    return dict(VALIDATIONS)


ROUTES = {
    '/instances': create_instance,
    '/consoles': create_console,
    '/ports': set_port,
    '/validations': validations,
    '/token-valid': token_valid,
}


def control_app(environ, start_response):
    route = ROUTES.get(environ.get('PATH_INFO'))
    if environ.get('REQUEST_METHOD') != 'POST' or route is None:
        start_response('404 Not Found', [('Content-Type', 'application/json')])
        return [b'{}']
    try:
        length = int(environ.get('CONTENT_LENGTH') or 0)
        answer = route(json.loads(environ['wsgi.input'].read(length) or b'{}'))
        status = '200 OK'
    except Exception as err:  # the test reads the reason
        answer = {'error': '%s: %s' % (type(err).__name__, err)}
        status = '500 Internal Server Error'
    start_response(status, [('Content-Type', 'application/json')])
    return [json.dumps(answer).encode('utf-8')]


def main():
    config.parse_args(sys.argv)
    objects.register_all()
    BASE_URLS.update({
        'novnc': CONF.vnc.novncproxy_base_url,
        'serial': CONF.serial_console.base_url,
        'spice-html5': CONF.spice.html5proxy_base_url,
    })
    serializer = objects_base.NovaObjectSerializer()
    server = rpc.get_server(messaging.Target(topic='compute', server=HOST), [ComputeStandIn()], serializer)
    server.start()
    listener = eventlet.listen(('127.0.0.1', 0))
    print('control-port %d' % listener.getsockname()[1], flush=True)
    eventlet.wsgi.server(listener, control_app, log_output=False)


if __name__ == '__main__':
    main()
